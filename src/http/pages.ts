// Small server-rendered HTML pages: a shared layout, and the page form of an API error.
import { escapeHtml } from '../markdown/escape.js';
import type { ApiError } from '../errors.js';
import type { Reply } from './respond.js';

/** A complete HTML document; `body` is trusted markup, `title` is escaped. */
export function page(title: string, body: string, status = 200): Reply {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Palaver</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.5rem}.error{color:#a00}label{display:block;margin:.75rem 0 .25rem}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}
button{font:inherit;margin-top:1rem;padding:.5rem 1rem}</style></head>
<body>${body}</body></html>`;
  return {
    status,
    contentType: 'text/html; charset=utf-8',
    headers: { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'self'; style-src 'unsafe-inline'" },
    body: html,
  };
}

export function htmlErrorPage(err: ApiError): Reply {
  return page('Error', `<h1 class="error">${escapeHtml(err.message)}</h1>`, err.status);
}

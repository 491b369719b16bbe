// Loads uWebSockets.js and refuses its slow pure-JS fallback unless explicitly allowed.
import { createRequire } from 'node:module';
import type * as UwsTypes from 'uWebSockets.js';

const require = createRequire(import.meta.url);

export interface LoadedUws {
  uws: typeof UwsTypes;
  native: boolean;
}

/** uWebSockets.js refuses a request whose head (request line + headers) is larger than this; its default is
 * 4 KB, too small for the long GET query strings real clients send (narrows, ID lists). */
export const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

export function loadUws(allowFallback: boolean): LoadedUws {
  // Read by the native addon when it loads.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_REQUEST_HEAD_BYTES);
  const originalWarn = console.warn;
  const warnings: string[] = [];
  console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  let uws: typeof UwsTypes;
  try {
    uws = require('uWebSockets.js');
  } finally {
    console.warn = originalWarn;
  }
  // The native build is a .node addon in require's cache; the fallback is plain JavaScript.
  const native = Object.keys(require.cache).some((k) => /uws_\w+_\w+_\d+\.node$/.test(k));
  if (!native && !allowFallback) {
    throw new Error(
      'uWebSockets.js could not load its native build for this Node.js ' +
        `(${process.platform}-${process.arch}, ABI ${process.versions.modules}) and would fall back to a slow ` +
        'pure-JS server. Use Node.js 20 (as package.json says), or set PALAVER_ALLOW_UWS_FALLBACK=1 to run slowly anyway.' +
        (warnings.length ? `\n${warnings.join('\n')}` : ''),
    );
  }
  return { uws, native };
}

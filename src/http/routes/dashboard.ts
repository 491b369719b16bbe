// The operator dashboard: a static page, its script and stylesheet (no build step). It holds no data itself; the
// script asks for the operator token and receives everything over the WebSocket at /operators/live.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../paths.js';
import { endpoint, RawReply } from '../endpoint.js';
import { page } from '../pages.js';

const DIR = path.join(packageRoot, 'src', 'operators', 'dashboard');
const ASSET_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };

const BODY = `<link rel="stylesheet" href="/operators/dashboard.css">
<script src="/operators/dashboard.js" defer></script>
<header><h1>Palaver operators</h1><span id="status">offline</span><span class="legend">updated <span id="updated">—</span></span></header>
<section id="login" hidden>
<form id="login-form"><label for="token">Operator token</label><input id="token" type="password" autocomplete="off" required>
<button type="submit" id="connect">Connect</button></form><p class="error" id="login-error"></p>
</section>
<main id="main" hidden>
<div class="grid">
<section class="card"><h2>Actors <span class="n" id="total-actors">0</span></h2><div id="kinds" class="grid"></div></section>
</div>
<section class="card" id="cluster" hidden><h2>Cluster <span class="n" id="node-count"></span></h2>
<table><thead><tr><th>node</th><th>actors</th><th>realms owned</th><th>once-only work</th></tr></thead><tbody id="node-rows"></tbody></table>
</section>
<div class="grid">
<section class="card"><h2>Requests</h2><svg class="chart" id="chart-requests" viewBox="0 0 300 80" preserveAspectRatio="none"></svg><div class="legend"></div></section>
<section class="card"><h2>Latency</h2><svg class="chart" id="chart-latency" viewBox="0 0 300 80" preserveAspectRatio="none"></svg><div class="legend"></div></section>
<section class="card"><h2>Events</h2><svg class="chart" id="chart-events" viewBox="0 0 300 80" preserveAspectRatio="none"></svg><div class="legend"></div></section>
</div>
<section class="card"><h2>Actor table <span class="n" id="matched"></span></h2>
<div class="filters">
<input id="f-q" type="search" placeholder="search id"><select id="f-kind"><option value="">all kinds</option></select>
<input id="f-state" placeholder="state"><input id="f-realm" placeholder="realm id" inputmode="numeric">
</div>
<table id="actor-table"><thead><tr><th class="node">node</th><th>id</th><th>kind</th><th>state</th><th>realm</th><th>mailbox</th><th>in state</th><th>last transition</th><th>parent</th><th>children</th></tr></thead>
<tbody id="actor-rows"></tbody></table>
</section>
</main>`;

// Built once, like the assets. The layout allows inline styles only; this page loads its own stylesheet.
const layout = page('Operators', BODY);
const PAGE = { ...layout, headers: { ...layout.headers, 'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'" } };

function asset(file: string, contentType: string) {
  const body = readFileSync(path.join(DIR, file));
  return endpoint({
    method: 'GET',
    path: `/operators/${file}`,
    root: true,
    errorFormat: 'html',
    auth: 'public',
    rateLimited: false,
    params: {},
    handle: () => new RawReply({ status: 200, contentType, headers: ASSET_HEADERS, body }),
  });
}

export const dashboardPage = endpoint({
  method: 'GET',
  path: '/operators/dashboard',
  root: true,
  errorFormat: 'html',
  auth: 'public',
  rateLimited: false,
  params: {},
  handle: () => new RawReply(PAGE),
});

export const dashboardEndpoints = [
  dashboardPage,
  asset('dashboard.js', 'text/javascript; charset=utf-8'),
  asset('dashboard.css', 'text/css; charset=utf-8'),
];

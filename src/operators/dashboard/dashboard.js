// The operator dashboard: connects to /operators/live with the operator token, then draws what the server pushes —
// actor counts by kind and state, traffic charts and the filtered actor table; in a cluster, every node's actors and
// which node owns which realm. No build step, no libraries.
(() => {
  'use strict';
  const $ = (sel) => document.querySelector(sel);
  const TOKEN_KEY = 'palaver-operator-token';
  const SERIES_SECONDS = 300;
  let socket = null;
  let series = [];
  let retryMs = 500;
  let filterTimer = null;

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    for (const c of children) e.append(c);
    return e;
  }

  function takeTokenFromFragment() {
    const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!m) return;
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }

  function setStatus(text, cls) {
    const s = $('#status');
    s.textContent = text;
    s.className = cls;
  }

  function currentFilter() {
    return { type: 'filter', q: $('#f-q').value, kind: $('#f-kind').value, state: $('#f-state').value, realm: $('#f-realm').value };
  }

  function sendFilter() {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(currentFilter()));
  }

  function connect() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) {
      $('#login').hidden = false;
      $('#main').hidden = true;
      return;
    }
    $('#login').hidden = true;
    $('#main').hidden = false;
    setStatus('connecting', '');
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/operators/live');
    socket = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: 'auth', token }));
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'hello') {
        retryMs = 500;
        setStatus('live', 'live');
        sendFilter();
      } else if (m.type === 'update') {
        render(m);
      }
    };
    ws.onclose = (e) => {
      if (socket !== ws) return;
      socket = null;
      if (e.code === 4401) {
        sessionStorage.removeItem(TOKEN_KEY);
        $('#login-error').textContent = 'The operator token was refused.';
        setStatus('refused', 'down');
        connect();
        return;
      }
      setStatus('reconnecting', 'down');
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 10000);
    };
  }

  function render(m) {
    $('#updated').textContent = new Date(m.at).toLocaleTimeString();
    renderCounts(m.counts);
    if (m.full_series) series = m.series;
    else {
      const last = series.length ? series[series.length - 1].t : 0;
      for (const s of m.series) {
        if (s.t > last) series.push(s);
        else {
          const i = series.findIndex((x) => x.t === s.t);
          if (i >= 0) series[i] = s;
        }
      }
      series = series.slice(-SERIES_SECONDS);
    }
    renderCharts();
    renderCluster(m);
    renderTable(m.actors, m.matched);
  }

  /** Cluster mode (the update names `nodes`): one row per node, with the realms it owns. */
  function renderCluster(m) {
    const clustered = Array.isArray(m.nodes);
    $('#cluster').hidden = !clustered;
    $('#actor-table').classList.toggle('clustered', clustered);
    if (!clustered) return;
    const owned = new Map(m.nodes.map((n) => [n.node, []]));
    for (const [realm, node] of Object.entries(m.realm_owners)) {
      if (!owned.has(node)) owned.set(node, []);
      owned.get(node).push(Number(realm));
    }
    $('#node-count').textContent = String(owned.size);
    $('#node-rows').replaceChildren(
      ...[...owned].map(([node, realms]) => {
        const n = m.nodes.find((x) => x.node === node);
        const sorted = realms.sort((a, b) => a - b);
        return el(
          'tr',
          { 'data-node': node, 'data-realms': sorted.join(','), class: node === m.node ? 'here' : '' },
          el('td', { class: 'id' }, node === m.node ? `${node} (this one)` : node),
          el('td', {}, n ? String(n.actors) : '—'),
          el('td', {}, sorted.join(', ')),
          el('td', {}, node === m.once_only ? 'yes' : ''),
        );
      }),
    );
  }

  function renderCounts(counts) {
    const byKind = new Map();
    for (const c of counts) {
      if (!byKind.has(c.kind)) byKind.set(c.kind, []);
      byKind.get(c.kind).push(c);
    }
    const total = counts.reduce((n, c) => n + c.count, 0);
    $('#total-actors').textContent = String(total);
    const box = $('#kinds');
    box.replaceChildren();
    const kindSelect = $('#f-kind');
    const selected = kindSelect.value;
    kindSelect.replaceChildren(el('option', { value: '' }, 'all kinds'));
    for (const [kind, states] of [...byKind].sort((a, b) => a[0].localeCompare(b[0]))) {
      const n = states.reduce((s, c) => s + c.count, 0);
      const list = el('ul', { class: 'states' });
      for (const c of states) {
        list.append(el('li', { 'data-kind': kind, 'data-state': c.state, 'data-count': String(c.count) }, el('span', {}, c.state), el('span', { class: 'count' }, String(c.count))));
      }
      box.append(el('section', { class: 'card kind', 'data-kind': kind, 'data-total': String(n) }, el('h2', {}, kind, el('span', { class: 'n' }, String(n))), list));
      kindSelect.append(el('option', { value: kind }, kind));
    }
    kindSelect.value = selected;
  }

  function polyline(values, max, color) {
    const w = 300;
    const h = 80;
    const step = w / Math.max(1, SERIES_SECONDS - 1);
    const offset = SERIES_SECONDS - values.length;
    const points = values.map((v, i) => `${((offset + i) * step).toFixed(1)},${(h - 2 - (v / max) * (h - 6)).toFixed(1)}`).join(' ');
    const p = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    p.setAttribute('points', points);
    p.setAttribute('stroke', color);
    return p;
  }

  function chart(id, lines) {
    const svg = $(id);
    const max = Math.max(1, ...lines.flatMap((l) => l.values));
    svg.replaceChildren(...lines.map((l) => polyline(l.values, max, l.color)));
    svg.nextElementSibling.replaceChildren(
      ...lines.map((l) => el('span', { style: `color:${l.color}` }, `${l.name}: ${l.values.length ? l.values[l.values.length - 1] : 0}`)),
      el('span', {}, `max ${Math.round(max * 100) / 100}`),
    );
  }

  function renderCharts() {
    chart('#chart-requests', [
      { name: 'requests/s', color: '#1565c0', values: series.map((s) => s.requests) },
      { name: 'errors/s', color: '#c62828', values: series.map((s) => s.errors) },
    ]);
    chart('#chart-latency', [
      { name: 'mean ms', color: '#2e7d32', values: series.map((s) => s.mean_ms) },
      { name: 'max ms', color: '#ef6c00', values: series.map((s) => s.max_ms) },
    ]);
    chart('#chart-events', [
      { name: 'published/s', color: '#6a1b9a', values: series.map((s) => s.published) },
      { name: 'delivered/s', color: '#00838f', values: series.map((s) => s.delivered) },
    ]);
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return '—';
    if (ms < 1000) return `${ms} ms`;
    if (ms < 120000) return `${(ms / 1000).toFixed(1)} s`;
    return `${Math.round(ms / 60000)} min`;
  }

  function renderTable(actors, matched) {
    $('#matched').textContent = actors.length < matched ? `${actors.length} of ${matched} shown` : `${matched} matched`;
    const body = $('#actor-rows');
    body.replaceChildren(
      ...actors.map((a) => {
        const t = a.last_transition;
        return el(
          'tr',
          { 'data-id': a.id, 'data-kind': a.kind, 'data-state': a.state, 'data-node': a.node ?? '' },
          el('td', { class: 'id node' }, a.node ?? ''),
          el('td', { class: 'id' }, a.id),
          el('td', {}, a.kind),
          el('td', {}, a.state),
          el('td', {}, a.realm_id === null ? '' : String(a.realm_id)),
          el('td', {}, String(a.mailbox)),
          el('td', {}, duration(a.time_in_state_ms)),
          el('td', {}, t ? `${t.from ?? '∅'} → ${t.to} (${t.event})` : ''),
          el('td', { class: 'id' }, a.parent ?? ''),
          el('td', {}, String(a.children.length)),
        );
      }),
    );
  }

  function onFilterInput() {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(sendFilter, 200);
  }

  document.addEventListener('DOMContentLoaded', () => {
    takeTokenFromFragment();
    $('#login-form').addEventListener('submit', (e) => {
      e.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, $('#token').value.trim());
      $('#token').value = '';
      $('#login-error').textContent = '';
      connect();
    });
    for (const id of ['#f-q', '#f-state', '#f-realm']) $(id).addEventListener('input', onFilterInput);
    $('#f-kind').addEventListener('change', sendFilter);
    connect();
  });
})();

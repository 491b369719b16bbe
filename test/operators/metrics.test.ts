// GET /metrics: refused without the operator token, the Prometheus text format, and the values after known actions.
import test from 'ava';
import http from 'node:http';
import { addUser } from '../helpers/users.js';
import { bearer, eventually, metric, parseMetrics, scrape, startOperatorServer } from './helpers.js';
import type { TestServer } from '../helpers/server.js';

let s: TestServer;
test.before(async () => {
  s = await startOperatorServer({ env: { METRICS_PORT: '0' } });
});
test.after.always(async () => {
  await s?.close();
});

test.serial('refused without the operator token, with a wrong one, and with a chat user\'s key', async (t) => {
  const none = await s.client.get('/metrics', { root: true });
  t.is(none.status, 401);
  t.is(none.json.code, 'UNAUTHORIZED');
  t.regex(String(none.headers['www-authenticate']), /^Bearer/);
  const wrong = await s.client.get('/metrics', { root: true, headers: bearer('not-the-token') });
  t.is(wrong.status, 401);
  t.is(wrong.json.msg, 'Invalid operator token');
  const chatUser = await s.client.get('/metrics', { root: true, auth: s.owner });
  t.is(chatUser.status, 401);
  const keyAsBearer = await s.client.get('/metrics', { root: true, headers: bearer(s.owner.apiKey) });
  t.is(keyAsBearer.status, 401);
  t.false([none, wrong, chatUser, keyAsBearer].some((r) => r.text.includes('palaver_')));
});

test.serial('the Prometheus text format with HELP and TYPE for every metric', async (t) => {
  const r = await s.client.get('/metrics', { root: true, headers: bearer() });
  t.is(r.status, 200);
  t.is(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  const samples = parseMetrics(r.text);
  for (const name of [
    'palaver_http_requests_total',
    'palaver_http_request_duration_seconds',
    'palaver_actors',
    'palaver_events_published_total',
    'palaver_events_delivered_total',
    'palaver_event_queues',
    'palaver_long_polls_parked',
    'palaver_event_queue_expiries_total',
    'palaver_realm_write_batch_size',
    'palaver_realm_write_batch_duration_seconds',
    'palaver_db_pool_connections',
    'palaver_db_query_duration_seconds',
    'palaver_scheduled_messages_pending',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_p99_seconds',
  ]) {
    t.regex(r.text, new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'), name);
  }
  t.true(metric(samples, 'process_resident_memory_bytes') > 0);
  t.is(metric(samples, 'palaver_actors', { kind: 'root', state: 'running' }), 1);
  t.true(metric(samples, 'palaver_db_query_duration_seconds_count') > 0, 'queries since start were observed');
  t.true(metric(samples, 'palaver_db_pool_max_connections') > 0);
});

test.serial('counts requests, events, deliveries, parked polls, queues, expiries and write batches', async (t) => {
  const alice = await addUser(s);
  const bob = await addUser(s);
  const before = await scrape(s);
  const published0 = metric(before, 'palaver_events_published_total');
  const batches0 = metric(before, 'palaver_realm_write_batch_duration_seconds_count');
  const queues0 = metric(before, 'palaver_event_queues');

  const reg = await s.client.as(bob).post('/register', { form: { event_types: '["message"]' } });
  t.is(reg.status, 200);
  const queueId = reg.json.queue_id as string;
  let m = await scrape(s);
  t.is(metric(m, 'palaver_event_queues'), queues0 + 1);
  t.is(metric(m, 'palaver_actors', { kind: 'eventQueue' }), queues0 + 1);

  // A parked poll shows up, and is answered by the message.
  const poll = s.client.as(bob).get('/events', { query: { queue_id: queueId, last_event_id: String(reg.json.last_event_id) } });
  await eventually(async () => metric(await scrape(s), 'palaver_long_polls_parked') === 1, 'the poll parks');
  m = await scrape(s);
  t.is(metric(m, 'palaver_actors', { kind: 'eventQueue', state: 'polling' }), 1);

  const sent = await s.client.as(alice).post('/messages', { form: { type: 'direct', to: `[${bob.id}]`, content: 'metrics' } });
  t.is(sent.status, 200, sent.text);
  const got = await poll;
  t.is(got.status, 200);
  const delivered = (got.json.events as { type: string }[]).filter((e) => e.type === 'message').length;
  t.is(delivered, 1);

  m = await scrape(s);
  t.is(metric(m, 'palaver_http_requests_total', { method: 'POST', route: '/api/v1/messages', status: '200' }), 1);
  t.is(metric(m, 'palaver_http_requests_total', { method: 'POST', route: '/api/v1/register', status: '200' }), 1);
  t.is(metric(m, 'palaver_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/messages' }), 1);
  t.is(metric(m, 'palaver_http_request_duration_seconds_bucket', { method: 'POST', route: '/api/v1/messages', le: '+Inf' }), 1);
  t.true(metric(m, 'palaver_events_published_total') >= published0 + 1);
  t.true(metric(m, 'palaver_events_delivered_total') >= 1);
  t.is(metric(m, 'palaver_long_polls_parked'), 0);
  t.true(metric(m, 'palaver_realm_write_batch_duration_seconds_count') >= batches0 + 1, 'the send was a write batch');
  t.true(metric(m, 'palaver_realm_write_batch_size_count') >= 1);
  t.is(metric(m, 'palaver_realm_write_batch_size_bucket', { le: '+Inf' }), metric(m, 'palaver_realm_write_batch_size_count'));
  t.true(metric(m, 'palaver_realm_command_wait_seconds_count', { kind: 'messages.send' }) >= 1, 'the send, labelled with its command name');

  // An error answer is counted under its route and status.
  const bad = await s.client.as(alice).get('/events', { query: { queue_id: 'no-such-queue', last_event_id: '-1' } });
  t.is(bad.status, 400);
  const deleted = await s.client.as(bob).delete('/events', { form: { queue_id: queueId } });
  t.is(deleted.status, 200);
  m = await scrape(s);
  t.is(metric(m, 'palaver_http_requests_total', { method: 'GET', route: '/api/v1/events', status: '400' }), 1);
  t.is(metric(m, 'palaver_event_queue_expiries_total', { reason: 'deleted' }), 1);
  t.is(metric(m, 'palaver_event_queues'), queues0);
  const unknown = await s.client.get('/no/such/page', { root: true });
  t.is(unknown.status, 404);
  t.is(metric(await scrape(s), 'palaver_http_requests_total', { route: 'unmatched', status: '404' }), 1);
});

test.serial('METRICS_PORT serves /metrics on loopback without a token, and nothing else', async (t) => {
  const port = s.config.metricsPort!;
  t.not(port, s.port);
  const get = (path: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        })
        .on('error', reject);
    });
  const r = await get('/metrics');
  t.is(r.status, 200);
  t.is(metric(parseMetrics(r.text), 'palaver_actors', { kind: 'root' }), 1);
  t.is((await get('/api/v1/server_settings')).status, 404);
});

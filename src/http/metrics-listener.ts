// GET /metrics without a token on a separate port (METRICS_PORT, loopback by default), for a Prometheus that
// scrapes from the same host or a private network. The main port serves it too, behind the operator token.
import type { TemplatedApp } from 'uWebSockets.js';
import { listenExclusive, type LoadedUws } from '../uws.js';
import { errors } from '../errors.js';
import { InFlight, serve, type Reply } from './respond.js';
import type { ServerMetrics } from '../operators/metrics.js';

export interface MetricsListener {
  port: number;
  close(): void;
}

export async function metricsReply(metrics: ServerMetrics): Promise<Reply> {
  return { status: 200, contentType: metrics.contentType, headers: { 'Cache-Control': 'no-store' }, body: await metrics.render() };
}

export async function listenForMetrics(
  uws: LoadedUws['uws'],
  host: string,
  port: number,
  metrics: ServerMetrics,
  onUnexpected: (err: unknown) => void,
): Promise<MetricsListener> {
  const app: TemplatedApp = uws.App();
  serve(
    app,
    async (req) => {
      if (req.url !== '/metrics') throw errors.endpointNotFound();
      if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed(['GET']);
      return metricsReply(metrics);
    },
    { maxBodyBytes: 0, onUnexpected },
    new InFlight(),
  );
  const socket = await listenExclusive(app, host, port, 'metrics');
  return {
    port: uws.us_socket_local_port(socket),
    close: () => uws.us_listen_socket_close(socket),
  };
}

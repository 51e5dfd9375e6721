/** A worker process's own GET /metrics (the API serves the same on its port when both run in one process). */
import http from 'node:http';
import { METRICS_CONTENT_TYPE, metricsRefusal, metricsText } from '../infra/metrics';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export function serveMetrics(port: number, host: string, token?: string): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ detail: 'only GET /metrics is served here' }));
      return;
    }
    const refusal = metricsRefusal({ host, token }, req.headers.authorization);
    if (refusal) {
      res
        .writeHead(refusal.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ detail: refusal.detail }));
      return;
    }
    metricsText().then(
      (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' }).end(text),
      () =>
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ detail: 'metrics could not be collected' })),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

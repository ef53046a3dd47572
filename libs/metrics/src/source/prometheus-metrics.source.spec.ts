import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asProblem, Problem } from '@app/core';
import '../metrics.problems';
import { MetricsUnavailable } from './metrics-source';
import { PrometheusMetricsSource } from './prometheus-metrics.source';

const id = '0f8b6c3e-5a1d-4c2e-9b7a-1d2e3f4a5b6c';
const range = { start: 1795683600, end: 1795687200, step: 60 };

/** A loopback stand-in for a query API: records each request's form, answers with `reply`. */
async function queryApi(reply: (res: ServerResponse) => void): Promise<{ url: string; forms: URLSearchParams[]; server: Server }> {
  const forms: URLSearchParams[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      forms.push(new URLSearchParams(body));
      if (req.url === '/prom/api/v1/query_range' && req.method === 'POST') reply(res);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/prom`, forms, server };
}

const matrix = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      status: 'success',
      data: { resultType: 'matrix', result: [{ metric: { series: 'cpu' }, values: [[1795683600, '12.5']] }] },
    }),
  );

async function refusal(promise: Promise<unknown>): Promise<Problem> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  // The adapter throws its own error; the edge answers it as this problem.
  expect(err).toBeInstanceOf(MetricsUnavailable);
  return asProblem(err)!;
}

describe('Prometheus adapter', () => {
  const servers: Server[] = [];
  afterAll(() =>
    servers.forEach((s) => {
      s.closeAllConnections();
      s.close();
    }),
  );

  it("asks the region's query API with the range and the PromQL of the service id, and maps the answer", async () => {
    const regional = await queryApi(matrix);
    const fallback = await queryApi(matrix);
    servers.push(regional.server, fallback.server);
    const source = new PrometheusMetricsSource({
      prometheusUrl: fallback.url,
      regionUrls: { 'eu-central': regional.url },
      timeoutMs: 2000,
      cacheSeconds: 0,
    });
    expect(await source.read({ serviceId: id, region: 'eu-central' }, ['cpu'], range)).toEqual({ cpu: [[1795683600, 12.5]] });
    expect(regional.forms).toHaveLength(1);
    expect(Object.fromEntries(regional.forms[0])).toMatchObject({ start: '1795683600', end: '1795687200', step: '60' });
    expect(regional.forms[0].get('query')).toContain(`{domain="svc-${id}"}`);
    await source.read({ serviceId: id, region: 'us-east' }, ['cpu'], range);
    expect(fallback.forms).toHaveLength(1);
  });

  it('answers 503 metrics_unavailable for an error answer, a silent server, a closed port and no URL', async () => {
    const failing = await queryApi((res) => res.writeHead(422).end(JSON.stringify({ status: 'error', error: 'bad query' })));
    const silent = await queryApi(() => undefined);
    servers.push(failing.server, silent.server);
    const closed = await queryApi(matrix);
    closed.server.close();
    for (const url of [failing.url, silent.url, closed.url, undefined]) {
      const source = new PrometheusMetricsSource({ prometheusUrl: url, regionUrls: {}, timeoutMs: 300, cacheSeconds: 0 });
      const problem = await refusal(source.read({ serviceId: id, region: 'eu-central' }, ['cpu', 'disk'], range));
      expect({ url, status: problem.getStatus(), code: problem.code }).toEqual({ url, status: 503, code: 'metrics_unavailable' });
      expect(problem.headers['Retry-After']).toBe('5');
    }
  });
});

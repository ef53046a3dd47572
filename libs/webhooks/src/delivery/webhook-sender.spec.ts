import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '@app/core';
import { WebhookSender } from './webhook-sender';

/** A DNS answer that changes after the check (rebinding): the sender's own lookup says 127.0.0.2, the system's says 127.0.0.1. */
class RebindingSender extends WebhookSender {
  lookups = 0;
  protected override lookup(): Promise<{ address: string; family: number }[]> {
    this.lookups++;
    return Promise.resolve([{ address: '127.0.0.2', family: 4 }]);
  }
}

const listen = (server: Server, host: string, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject).listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });

describe('WebhookSender', () => {
  const hits: Record<string, number> = {};
  const receiver = (name: string) =>
    createServer((req, res) => {
      hits[name] = (hits[name] ?? 0) + 1;
      req.resume().on('end', () => res.writeHead(204).end());
    });
  const checked = receiver('checked');
  const rebound = receiver('rebound');
  let port: number;
  beforeAll(async () => {
    port = await listen(checked, '127.0.0.2', 0);
    await listen(rebound, '127.0.0.1', port);
  });
  afterAll(async () => {
    for (const server of [checked, rebound]) await new Promise((resolve) => server.close(resolve));
  });

  it('connects to the address it checked, not to what a second lookup would answer', async () => {
    const config = { webhooks: { allowHttp: true, allowPrivate: true, timeoutSeconds: 5 } } as AppConfig;
    const sender = new RebindingSender(config);
    const result = await sender.send(`http://localhost:${port}/hook`, {}, '{}');
    expect(result).toMatchObject({ ok: true, result: 'succeeded', responseCode: 204, error: null });
    expect(hits).toEqual({ checked: 1 });
    expect(sender.lookups).toBe(1);
  });

  it('reports a connection failure without the address it went to', async () => {
    const closed = createServer();
    const closedPort = await listen(closed, '127.0.0.2', 0);
    await new Promise((resolve) => closed.close(resolve));
    const config = { webhooks: { allowHttp: true, allowPrivate: true, timeoutSeconds: 5 } } as AppConfig;
    const result = await new RebindingSender(config).send(`http://localhost:${closedPort}/hook`, {}, '{}');
    expect(result).toMatchObject({ ok: false, result: 'network_error', responseCode: null, error: 'connect ECONNREFUSED', response: null });
  });

  it('refuses a name resolving to an internal address without naming the address', async () => {
    const config = { webhooks: { allowHttp: true, allowPrivate: false, timeoutSeconds: 5 } } as AppConfig;
    const result = await new RebindingSender(config).send(`http://localhost:${port}/hook`, {}, '{}');
    expect(result).toMatchObject({
      ok: false,
      result: 'refused',
      responseCode: null,
      error: 'refused: the address is not allowed',
      response: null,
    });
    expect(hits).toEqual({ checked: 1 });
  });
});

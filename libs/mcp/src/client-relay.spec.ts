import type { Request, Response } from 'express';
import { ClientRelay } from './client-relay';

/** What the middleware sees of a request: its headers, the peer address and Express's own `ip`. */
function requestFrom(remoteAddress: string, headers: Record<string, string>): Request {
  return { headers: { ...headers }, socket: { remoteAddress }, ip: remoteAddress } as unknown as Request;
}

function pass(relay: ClientRelay, req: Request): Request {
  let called = false;
  relay.middleware(req, {} as Response, () => (called = true));
  expect(called).toBe(true);
  return req;
}

describe('ClientRelay', () => {
  const relay = new ClientRelay();
  const headers = relay.headersFor('203.0.113.7');

  it("gives a loopback call with this process's secret its client's address, and removes the headers", () => {
    const req = pass(relay, requestFrom('127.0.0.1', { ...headers, 'user-agent': 'x' }));
    expect(req.ip).toBe('203.0.113.7');
    expect(req.headers).toEqual({ 'user-agent': 'x' });
    expect(pass(relay, requestFrom('::ffff:127.0.0.1', headers)).ip).toBe('203.0.113.7');
  });

  it('keeps the real address of a call with another secret, from elsewhere, or naming no address', () => {
    const forged = { ...headers, 'x-hosting-relay': 'guess' };
    expect(pass(relay, requestFrom('127.0.0.1', forged))).toMatchObject({ ip: '127.0.0.1', headers: {} });
    expect(pass(new ClientRelay(), requestFrom('127.0.0.1', headers)).ip).toBe('127.0.0.1');
    expect(pass(relay, requestFrom('198.51.100.4', headers))).toMatchObject({ ip: '198.51.100.4', headers: {} });
    expect(pass(relay, requestFrom('127.0.0.1', { ...headers, 'x-hosting-relay-for': 'evil, 1.2.3.4' })).ip).toBe('127.0.0.1');
  });

  it('leaves every other request alone', () => {
    expect(pass(relay, requestFrom('198.51.100.4', { accept: '*/*' }))).toMatchObject({ ip: '198.51.100.4', headers: { accept: '*/*' } });
    expect(relay.headersFor(undefined)).toEqual({});
  });
});

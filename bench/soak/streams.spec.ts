import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { STOPPED, StreamWatcher } from './streams';

describe('StreamWatcher', () => {
  let server: Server;
  let connections = 0;
  const authorizations: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      authorizations.push(String(req.headers.authorization));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (++connections === 1) {
        res.write('event: unread-count\ndata: {"count":2}\n\n');
        res.end('event: notification\ndata: {"id":"n1"}\n\nevent: reconnect\ndata: {"reason":"max_lifetime"}\n\n');
      } else {
        res.write(': heartbeat\n\nevent: unread-count\ndata: {"count":0}\n\n');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps each connection’s events, opens again after an end, and marks the one open when stopped', async () => {
    const watcher = new StreamWatcher('a@example.com', 'acc', 'key-1', () => (server.address() as AddressInfo).port, Date.now());
    watcher.start();
    while (watcher.sessions.length < 2 || watcher.sessions[1].lastCount === undefined) await sleep(50);
    await watcher.stop();
    expect(authorizations.slice(0, 2)).toEqual(['Bearer key-1', 'Bearer key-1']);
    expect(watcher.sessions[0]).toMatchObject({ lastCount: 2, notificationIds: ['n1'], ending: 'reconnect' });
    expect(watcher.sessions[1]).toMatchObject({ lastCount: 0, notificationIds: [], ending: STOPPED });
    expect(watcher.sessions[1].closedAt).toBeGreaterThanOrEqual(watcher.sessions[1].openedAt);
  });
});

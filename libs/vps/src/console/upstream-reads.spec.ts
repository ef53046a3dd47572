import { createHash, randomBytes } from 'node:crypto';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { copyBothWays } from './copy-both-ways';
import { UpstreamReads } from './upstream-reads';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Upstream bytes through the console's copy to a WebSocket client that reads slowly, compared byte for byte. */
describe('UpstreamReads', () => {
  // 24 MiB per connection, in writes of every size: many slabs, each reused while others are in flight.
  const payload = randomBytes(24 << 20);
  let upstreamServer: Server;
  let wss: WebSocketServer;
  const counted: number[] = [];

  beforeAll(async () => {
    upstreamServer = createServer((socket) => {
      void (async () => {
        for (let at = 0, size = 1; at < payload.length; at += size, size = (size * 7 + 4093) % (300 << 10)) {
          if (!socket.write(payload.subarray(at, at + size))) await new Promise((r) => socket.once('drain', r));
        }
        socket.end();
      })();
    });
    await new Promise<void>((r) => upstreamServer.listen(0, '127.0.0.1', r));
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    wss.on('connection', (ws) => {
      const reads = new UpstreamReads();
      const at = counted.push(0) - 1;
      const upstream: Socket = connect({ port: (upstreamServer.address() as AddressInfo).port, host: '127.0.0.1', onread: reads.onread });
      upstream.pause();
      upstream.once('connect', () => copyBothWays(ws, upstream, reads, (toClient) => (counted[at] += toClient)));
      upstream.once('close', () => ws.close());
    });
    await new Promise((r) => wss.once('listening', r));
  });
  afterAll(async () => {
    await new Promise((r) => wss.close(r));
    await new Promise((r) => upstreamServer.close(r));
  });

  /** Everything one client received, pausing its socket for 20 ms after every message so the proxy's sends queue up. */
  const receiveSlowly = () =>
    new Promise<Buffer>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
      const chunks: Buffer[] = [];
      ws.on('message', (data: Buffer, isBinary) => {
        if (!isBinary) reject(new Error('a text message'));
        chunks.push(Buffer.from(data));
        ws.pause();
        setTimeout(() => ws.resume(), 20);
      });
      ws.on('close', () => resolve(Buffer.concat(chunks)));
      ws.on('error', reject);
    });

  it('delivers every byte in order to each of two concurrent clients, with their slabs reused', async () => {
    const received = await Promise.all([receiveSlowly(), receiveSlowly()]);
    for (const data of received) {
      expect(data.length).toBe(payload.length);
      expect(sha256(data)).toBe(sha256(payload));
    }
    expect(counted).toEqual([payload.length, payload.length]);
  }, 60_000);
});

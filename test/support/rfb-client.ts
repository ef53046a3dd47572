import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { createWebSocketStream } from 'ws';
import { vncResponse } from '../../libs/vps/src/compute/simulated-vnc/vnc-auth';
import { SocketReader } from '../../libs/vps/src/compute/simulated-vnc/socket-reader';

export interface RfbScreen {
  name: string;
  width: number;
  height: number;
  /** Distinct pixel values of one full framebuffer update (32 bpp, Raw). */
  colours: number;
}

export type RfbResult = { ok: true; screen: RfbScreen } | { ok: false; reason: string };

/**
 * Opens the console URL as noVNC does (subprotocol "binary"); rejects with the HTTP status if refused.
 * Without `headers` no Origin is sent, as from a program (a browser always sends one).
 */
export function openConsoleSocket(url: string, headers?: Record<string, string>): Promise<{ ws: WebSocket; stream: Duplex }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['binary'], { headers });
    ws.once('open', () => resolve({ ws, stream: createWebSocketStream(ws) }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`refused with ${res.statusCode}`), {
            status: res.statusCode,
            body: JSON.parse(body || '{}'),
            headers: res.headers,
          }),
        ),
      );
    });
    ws.once('error', reject);
  });
}

/** How a console closed, as its client saw it. */
export interface Closed {
  code: number;
  reason: string;
}

/** Resolves with the close code and reason once the WebSocket closes (call it while the socket is open). */
export const closeOf = (ws: WebSocket): Promise<Closed> =>
  new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));

export const tcpStream = (port: number, host = '127.0.0.1'): Promise<Duplex> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => resolve(socket));
    socket.once('error', reject);
  });

/** An RFB 3.8 client: VNC authentication with `password`, then one full framebuffer update. */
export async function viewScreen(stream: Duplex, password: string): Promise<RfbResult> {
  const reader = new SocketReader(stream);
  const version = (await reader.read(12)).toString('latin1');
  if (version !== 'RFB 003.008\n') return { ok: false, reason: `server speaks ${version.trim()}` };
  stream.write('RFB 003.008\n');
  const types = await reader.read((await reader.read(1))[0]);
  if (!types.includes(2)) return { ok: false, reason: 'no VNC authentication offered' };
  stream.write(Buffer.from([2]));
  stream.write(vncResponse(password, await reader.read(16)));
  if ((await reader.read(4)).readUInt32BE(0) !== 0) {
    return { ok: false, reason: (await reader.read((await reader.read(4)).readUInt32BE(0))).toString('latin1') };
  }
  stream.write(Buffer.from([1]));
  const init = await reader.read(24);
  const [width, height] = [init.readUInt16BE(0), init.readUInt16BE(2)];
  if (init[4] !== 32) return { ok: false, reason: `unexpected ${init[4]} bits per pixel` };
  const name = (await reader.read(init.readUInt32BE(20))).toString('utf8');
  const request = Buffer.alloc(10);
  request.writeUInt8(3, 0);
  request.writeUInt16BE(width, 6);
  request.writeUInt16BE(height, 8);
  stream.write(request);
  const header = await reader.read(4);
  if (header[0] !== 0) return { ok: false, reason: `unexpected message ${header[0]}` };
  const colours = new Set<number>();
  for (let rect = header.readUInt16BE(2); rect > 0; rect--) {
    const r = await reader.read(12);
    const pixels = await reader.read(r.readUInt16BE(4) * r.readUInt16BE(6) * 4);
    for (let i = 0; i < pixels.length; i += 4) colours.add(pixels.readUInt32LE(i));
  }
  return { ok: true, screen: { name, width, height, colours: colours.size } };
}

/** Resolves when the stream ends (the server closed the console). */
export const ended = (stream: Duplex): Promise<void> =>
  new Promise((resolve) => {
    if (stream.destroyed) return resolve();
    stream.once('close', () => resolve());
    stream.once('end', () => resolve());
    stream.once('error', () => resolve());
    stream.resume();
  });

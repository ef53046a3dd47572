import type { IncomingMessage } from 'node:http';
import { connect as connectTcp, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as connectTls } from 'node:tls';

const PASSED_HEADERS = ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'sec-websocket-extensions'];

/**
 * Relays a browser's WebSocket upgrade to `target` byte for byte, as hostctl's own connection.
 * The API accepts console WebSockets only from its own origins or from clients that send no
 * Origin; the page hostctl serves on 127.0.0.1 is neither, so it connects
 * here and this connection, which sends no Origin, carries its frames.
 */
export function relayWebSocket(req: IncomingMessage, client: Duplex, head: Buffer, target: string): void {
  const url = new URL(target);
  const secure = url.protocol === 'wss:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (secure ? 443 : 80));
  const upstream = secure ? connectTls({ host, port, servername: isIP(host) ? undefined : host }) : connectTcp({ host, port });
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Connection: Upgrade', 'Upgrade: websocket'];
  for (const name of PASSED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') lines.push(`${name}: ${value}`);
  }
  const close = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.once(secure ? 'secureConnect' : 'connect', () => {
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  for (const side of [upstream, client]) {
    side.on('error', close);
    side.on('close', close);
  }
}

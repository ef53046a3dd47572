import { rmSync } from 'node:fs';
import { createConnection, createServer, Server, Socket } from 'node:net';

const REMOTE_PROGRAM = 0x20008086;
/** Procedure numbers of libvirt's remote protocol (src/remote/remote_protocol.x). */
export const RPC = {
  define: [11, 350], // DOMAIN_DEFINE_XML, DOMAIN_DEFINE_XML_FLAGS
  start: [9, 196], // DOMAIN_CREATE, DOMAIN_CREATE_WITH_FLAGS
  shutdown: [33, 258], // DOMAIN_SHUTDOWN, DOMAIN_SHUTDOWN_FLAGS
} as const;

export interface LibvirtRpcTap {
  /** The socket clients connect to instead of the daemon's. */
  socket: string;
  /**
   * Resolves when a client next calls one of `procedures`, after `hook` ran and before the call
   * reaches the daemon; only the first such call triggers it.
   */
  once(procedures: readonly number[], hook: () => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * A Unix socket in front of a libvirtd that passes every byte through and reads the call headers
 * of libvirt's RPC (a 4-byte length, then program, version, procedure...), so a test can act at
 * the moment a given call is on its way: freeze the daemon in the middle of a define, a start or
 * a stop, or kill the API process that made it.
 */
export async function startRpcTap(socket: string, daemonSocket: string): Promise<LibvirtRpcTap> {
  let waiting: { procedures: readonly number[]; hook: () => void; resolve: () => void } | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const daemon = createConnection(daemonSocket);
    sockets.add(client).add(daemon);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Forward whole messages, looking at each call's header first.
      while (pending.length >= 4 && pending.length >= pending.readUInt32BE(0)) {
        const length = pending.readUInt32BE(0);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (
          waiting &&
          message.length >= 16 &&
          message.readUInt32BE(4) === REMOTE_PROGRAM &&
          waiting.procedures.includes(message.readUInt32BE(12))
        ) {
          const { hook, resolve } = waiting;
          waiting = null;
          hook();
          resolve();
        }
        daemon.write(message);
      }
    });
    daemon.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      daemon.destroy();
      sockets.delete(client);
      sockets.delete(daemon);
    };
    client.on('close', end).on('error', end);
    daemon.on('close', end).on('error', end);
  });
  rmSync(socket, { force: true });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    socket,
    once: (procedures, hook) => new Promise<void>((resolve) => (waiting = { procedures, hook, resolve })),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
      rmSync(socket, { force: true });
    },
  };
}

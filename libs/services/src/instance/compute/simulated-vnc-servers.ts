import { createServer, Server, Socket } from 'node:net';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { serveRfbSession } from '../console/rfb/rfb-session';
import { Screen, stillScreen } from '../console/rfb/still-screen';
import { vncResponseMatches } from '../console/rfb/vnc-auth';

/** How long a console password opens the screen, as libvirt's passwdValidTo does for real guests. */
const PASSWORD_VALID_MS = 60_000;

interface SimulatedDisplay {
  server: Server;
  port: number;
  screen: Screen;
  passwords: Map<string, number>;
  sockets: Set<Socket>;
}

/**
 * The simulator's VNC displays: one RFB server per machine on a loopback port of this process,
 * as QEMU gives each guest its own VNC port. Each console session adds a password that can be
 * used to log in for 60 seconds; a connection already open stays open.
 */
@Injectable()
export class SimulatedVncServers implements OnModuleDestroy {
  private readonly displays = new Map<string, Promise<SimulatedDisplay>>();

  async addPassword(name: string, password: string): Promise<{ host: string; port: number }> {
    let display = this.displays.get(name);
    if (!display) {
      display = this.listen(name);
      this.displays.set(name, display);
      display.catch(() => this.displays.delete(name));
    }
    const ready = await display;
    const now = Date.now();
    for (const [old, validUntil] of ready.passwords) if (validUntil <= now) ready.passwords.delete(old);
    ready.passwords.set(password, now + PASSWORD_VALID_MS);
    return { host: '127.0.0.1', port: ready.port };
  }

  async onModuleDestroy(): Promise<void> {
    const displays = [...this.displays.values()];
    this.displays.clear();
    await Promise.all(displays.map(async (display) => close(await display).catch(() => undefined)));
  }

  private listen(name: string): Promise<SimulatedDisplay> {
    const sockets = new Set<Socket>();
    const passwords = new Map<string, number>();
    const screen = stillScreen(name);
    const authenticate = (challenge: Buffer, response: Buffer) =>
      [...passwords].some(([password, validUntil]) => validUntil > Date.now() && vncResponseMatches(password, challenge, response));
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      void serveRfbSession(socket, { name, screen, authenticate });
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () =>
        resolve({ server, port: (server.address() as { port: number }).port, screen, passwords, sockets }),
      );
    });
  }
}

function close(display: SimulatedDisplay): Promise<void> {
  for (const socket of display.sockets) socket.destroy();
  return new Promise((resolve) => display.server.close(() => resolve()));
}

import { createServer, Server, Socket } from 'node:net';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { serveRfbSession } from './rfb-session';
import { Screen, stillScreen } from './still-screen';
import { vncResponseMatches } from './vnc-auth';

/** How long a console password opens the screen, as libvirt's passwdValidTo does for real guests. */
const PASSWORD_VALID_MS = 60_000;

interface SimulatedDisplay {
  server: Server;
  port: number;
  /** Redrawn when the service's name changes; a connection draws the screen of its time. */
  screen: Screen;
  text: string;
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

  /** `serviceName`, when given, is written on the screen beside the machine's name. */
  async addPassword(name: string, password: string, serviceName?: string): Promise<{ host: string; port: number }> {
    let display = this.displays.get(name);
    if (!display) {
      display = this.listen(name);
      this.displays.set(name, display);
      display.catch(() => this.displays.delete(name));
    }
    const ready = await display;
    const text = screenText(name, serviceName);
    if (ready.text !== text) Object.assign(ready, { text, screen: stillScreen(text) });
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
    const display: Omit<SimulatedDisplay, 'server' | 'port'> = {
      text: name,
      screen: stillScreen(name),
      passwords: new Map<string, number>(),
      sockets: new Set<Socket>(),
    };
    const authenticate = (challenge: Buffer, response: Buffer) =>
      [...display.passwords].some(([password, validUntil]) => validUntil > Date.now() && vncResponseMatches(password, challenge, response));
    const server = createServer((socket) => {
      display.sockets.add(socket);
      socket.on('close', () => display.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      void serveRfbSession(socket, { name, screen: display.screen, authenticate });
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      // The same object the connections read, so a later redraw reaches them.
      server.listen(0, '127.0.0.1', () => resolve(Object.assign(display, { server, port: (server.address() as { port: number }).port })));
    });
  }
}

/** What the screen says: the service's name first (what its owner calls it), then the machine's. */
function screenText(machine: string, serviceName?: string): string {
  return serviceName ? `${serviceName}  ${machine}` : machine;
}

function close(display: SimulatedDisplay): Promise<void> {
  for (const socket of display.sockets) socket.destroy();
  return new Promise((resolve) => display.server.close(() => resolve()));
}

import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  /** The request's path (an endpoint's URL may add one to the receiver's). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, any> };
  /** The status this receiver answered. */
  answered: number;
  /** When the request arrived (ms since the epoch). */
  at: number;
}

/**
 * A webhook receiver on loopback, as a customer would run one: it records every POST and answers
 * with the next status of `responses` (then 204), or whatever `respond` returns.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  responses: number[] = [];
  /** Answer this long after the request arrived. */
  delayMs = 0;
  /** Most requests held open at once. */
  maxConcurrent = 0;
  /** Most requests held open at once on one path. */
  maxConcurrentPerPath = 0;
  /** Requests waiting for `hold()`'s release: answer not sent, connection still open. */
  heldNow = 0;
  /** TCP connections accepted. */
  connections = 0;
  /** The next request that comes on a connection already used is dropped unanswered (a server closing an idle connection as it is reused). */
  dropNextReused = false;
  private open = 0;
  private readonly openByPath = new Map<string, number>();
  private held?: Promise<void>;
  respond?: (body: string) => number | { status: number; headers?: Record<string, string>; body?: string | Buffer };
  private server?: Server;

  constructor(private port = 0) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(): Promise<this> {
    const served = new WeakSet<object>();
    this.server = createServer((req, res) => {
      if (served.has(req.socket) && this.dropNextReused) {
        this.dropNextReused = false;
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      const at = Date.now();
      const path = req.url ?? '/';
      this.maxConcurrent = Math.max(this.maxConcurrent, ++this.open);
      const onPath = (this.openByPath.get(path) ?? 0) + 1;
      this.openByPath.set(path, onPath);
      this.maxConcurrentPerPath = Math.max(this.maxConcurrentPerPath, onPath);
      req.on('end', async () => {
        if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
        if (this.held) await this.waitForRelease(this.held, res);
        this.open--;
        this.openByPath.set(path, this.openByPath.get(path)! - 1);
        const body = Buffer.concat(chunks).toString('utf8');
        const custom = this.respond?.(body);
        const answer: { status: number; headers?: Record<string, string>; body?: string | Buffer } =
          typeof custom === 'number' ? { status: custom } : (custom ?? { status: this.responses.shift() ?? 204 });
        this.received.push({ path, headers: req.headers, body, json: JSON.parse(body), answered: answer.status, at });
        res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? (answer.status >= 400 ? 'receiver says no' : ''));
      });
    });
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Requests that arrive from now on are not answered until the function returned is called. */
  hold(): () => void {
    let release!: () => void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.held = undefined;
      release();
    };
  }

  private async waitForRelease(held: Promise<void>, res: ServerResponse): Promise<void> {
    this.heldNow++;
    let counted = true;
    const uncount = () => {
      if (counted) this.heldNow--;
      counted = false;
    };
    res.once('close', uncount); // the sender gave up (its timeout, or shutdown)
    await held;
    uncount();
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server!.close(resolve));
    this.server = undefined;
  }

  of(type: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.json.type === type);
  }

  /** Throws unless the signature header verifies with `secret` (standardwebhooks, the reference library). */
  static verify(secret: string, hook: ReceivedWebhook): unknown {
    return new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>);
  }
}

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MCP_PROTOCOL_VERSION } from '../../test/support/mcp-session';
import { linkToken } from '../../test/support/smtp';
import { Answer, HttpLog } from './http-log';
import { Random } from './random';
import { StreamWatcher } from './streams';
import { DEBIAN_IMAGE, SoakWorld } from './world';

export interface Customer {
  email: string;
  password: string;
  accountId: string;
  apiKey: string;
  vpsIds: string[];
  ticketIds: string[];
  endpoint?: { id: string; secret: string };
  /** The VPSes whose daily backups it enabled. */
  backupsOn?: string[];
  /** Its VPS runs the Debian test image: only it rebuilds from that image (each Debian guest costs a core's share under TCG). */
  debian?: boolean;
}

/** A 2xx answer to a request with an Idempotency-Key: what a replay must give again. */
export interface KeyedAnswer {
  customer: string;
  method: 'POST';
  path: string;
  body?: unknown;
  key: string;
  status: number;
  text: string;
  location: string | null;
}

export interface ReplayCheck {
  key: string;
  path: string;
  /** ms since the soak began */
  at: number;
  /** How long the replay took. */
  ms: number;
  firstStatus: number;
  replayStatus: number;
  same: boolean;
  replayedHeader: string | null;
}

export interface Revocation {
  customer: string;
  keyId: string;
  key: string;
  /** ms since the soak began when the DELETE answered 204 */
  revokedAt: number;
  probes: { at: number; status: number }[];
}

/** What the customers did that the audit checks. */
export interface LoadRecord {
  customers: Customer[];
  keyed: KeyedAnswer[];
  /** Power actions accepted (202): the audit finds each finished. */
  actions: { serviceId: string; actionId: string; type: string; at: number }[];
  replays: ReplayCheck[];
  revocations: Revocation[];
  /** Mail the customers caused and must receive exactly once, by address and subject. */
  expectedMail: { to: string; subject: string }[];
  /** MCP sessions opened, and each of their requests that was not answered as asked. */
  mcp: { sessions: number; failures: McpFailure[] };
}

/** A request in an MCP session not answered as asked (times in ms since the soak began). */
export interface McpFailure {
  session: string;
  method: string;
  status: number;
  text: string;
  openedAt: number;
  at: number;
}

const PASSWORD = 'soak-password-0123';
const THINK_MS: [number, number] = [500, 3_000];

export class CustomerLoad {
  /** The notification streams held open, one per watching customer (the VPS owners first). */
  readonly watchers: StreamWatcher[] = [];
  readonly record: LoadRecord = {
    customers: [],
    keyed: [],
    actions: [],
    replays: [],
    revocations: [],
    expectedMail: [],
    mcp: { sessions: 0, failures: [] },
  };

  constructor(
    private readonly world: SoakWorld,
    private readonly http: HttpLog,
    private readonly random: Random,
    private readonly began: number,
  ) {}

  /**
   * Sign-ups through the API (mail, confirmation link, an API key), webhook endpoints, and the VPSes the operator
   * provisions: the first `withVps` customers get a busybox VPS each, the next `withDebian` a running Debian one with backups enabled.
   */
  async signUp(count: number, withVps: number, withEndpoint: number, withDebian: number): Promise<void> {
    const run = `${Date.now().toString(36)}`;
    for (let start = 0; start < count; start += 10) {
      const batch = Array.from({ length: Math.min(10, count - start) }, (_, i) => this.signUpOne(`soak-${run}-${start + i}@example.com`));
      this.record.customers.push(...(await Promise.all(batch)));
    }
    for (const customer of this.record.customers.slice(0, withEndpoint)) {
      const made = await this.must('POST', '/api/webhooks', customer.apiKey, 201, {
        url: this.world.receiver.url,
        events: ['*'],
        description: 'soak receiver',
      });
      customer.endpoint = { id: made.body.id, secret: made.body.secret };
    }
    for (const customer of this.record.customers.slice(0, withVps)) customer.vpsIds = await this.world.provision(customer.email, 1);
    for (const customer of this.record.customers.slice(withVps, withVps + withDebian)) {
      customer.vpsIds = await this.world.provision(customer.email, 1, DEBIAN_IMAGE);
      customer.debian = true;
      const id = customer.vpsIds[0];
      await this.must('POST', `/api/services/${id}/instance/backups/enable`, customer.apiKey, 200);
      customer.backupsOn = [id];
    }
  }

  /** `count` customers keep the notification stream open while they play (at most NOTIFICATIONS_MAX_STREAMS_PER_IP: all come from loopback). */
  watchStreams(count: number): void {
    for (const customer of this.record.customers.slice(0, count)) {
      const watcher = new StreamWatcher(customer.email, customer.accountId, customer.apiKey, () => this.world.nginx.http, this.began);
      watcher.start();
      this.watchers.push(watcher);
    }
  }

  /** Every customer plays until `untilMs`, each with its own seeded choices. */
  async play(untilMs: number): Promise<void> {
    await Promise.all(this.record.customers.map((customer, i) => this.playOne(customer, this.random.fork(i + 1), untilMs)));
  }

  private async signUpOne(email: string): Promise<Customer> {
    const registered = await this.must('POST', '/api/auth/register', undefined, 201, { email, password: PASSWORD, name: 'Soak customer' });
    const subject = 'Confirm your email address';
    this.record.expectedMail.push({ to: email, subject });
    const mail = await this.world.smtp.waitForMail(email, new RegExp(subject), 120_000);
    await this.must('POST', '/api/auth/email/verify', undefined, 204, { token: linkToken(mail, '/account/confirm-email') });
    const key = await this.must('POST', '/api/auth/api-keys', registered.body.accessToken, 201, { name: 'automation' });
    return { email, password: PASSWORD, accountId: registered.body.accountId, apiKey: key.body.key, vpsIds: [], ticketIds: [] };
  }

  private async must(method: string, path: string, bearer: string | undefined, status: number, body?: unknown): Promise<Answer> {
    for (let attempt = 1; ; attempt++) {
      const answer = await this.http.send(method, path, { bearer, body });
      if (answer.status === status) return answer;
      if (attempt === 5) throw new Error(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 500)}`);
      await sleep(1_000);
    }
  }

  private async playOne(customer: Customer, random: Random, untilMs: number): Promise<void> {
    await sleep(random.int(0, THINK_MS[1]));
    // A Debian guest boots in about a minute under TCG: its owner acts at a fifth of the pace and
    // seldom powers it, so it runs (agent up) most of the time and its backups freeze a live system.
    const pace = customer.debian ? 5 : 1;
    while (Date.now() < untilMs) {
      const hasVps = customer.vpsIds.length > 0;
      const op = random.weighted({
        browse: 30,
        events: 6,
        power: hasVps ? (customer.debian ? 3 : 30) : 0,
        metrics: hasVps ? 5 : 0,
        readNotifications: 2,
        snapshot: hasVps ? 4 : 0,
        rebuild: hasVps ? 3 : 0,
        dropSnapshot: hasVps ? 3 : 0,
        backups: hasVps ? 3 : 0,
        ticket: 6,
        reply: customer.ticketIds.length ? 4 : 0,
        keys: 4,
        login: 4,
        mcp: 4,
      });
      await this[op](customer, random);
      await sleep(random.int(...THINK_MS) * pace);
    }
  }

  private async browse(customer: Customer, random: Random): Promise<void> {
    await this.http.send('GET', `/api/services?pageSize=${random.pick([10, 25])}`, { bearer: customer.apiKey });
    await this.http.send('GET', '/api/notifications/unread-count', { bearer: customer.apiKey });
    if (customer.vpsIds.length) await this.http.send('GET', `/api/services/${random.pick(customer.vpsIds)}`, { bearer: customer.apiKey });
  }

  /** A graph's read, as the dashboard makes it: the last hour of one VPS from Prometheus. */
  private async metrics(customer: Customer, random: Random): Promise<void> {
    const id = random.pick(customer.vpsIds);
    await this.http.send('GET', `/api/services/${id}/instance/metrics?type=${random.pick(['cpu', 'cpu,disk,network'])}`, {
      bearer: customer.apiKey,
    });
  }

  /** The dashboard's bell: the list, then every notification marked read (the streams' counts drop to 0). */
  private async readNotifications(customer: Customer): Promise<void> {
    await this.http.send('GET', '/api/notifications?pageSize=20', { bearer: customer.apiKey });
    await this.http.send('POST', '/api/notifications/read-all', { bearer: customer.apiKey });
  }

  private async events(customer: Customer): Promise<void> {
    await this.http.send('GET', '/api/events?pageSize=20', { bearer: customer.apiKey });
  }

  private async power(customer: Customer, random: Random): Promise<void> {
    const id = random.pick(customer.vpsIds);
    const service = await this.http.send('GET', `/api/services/${id}`, { bearer: customer.apiKey });
    const state = service.body?.instance?.powerState;
    const type =
      state === 'stopped' ? 'start' : state === 'running' ? random.pick(['stop', 'stop', 'reboot']) : random.pick(['start', 'stop']);
    const path = `/api/services/${id}/instance/${type}`;
    const key = randomUUID();
    const concurrent = random.next() < 0.1;
    const sends = concurrent ? [this.keyed(customer, path, key), this.keyed(customer, path, key)] : [this.keyed(customer, path, key)];
    const answers = await Promise.all(sends);
    const accepted = answers.find((a) => a.status === 202);
    if (accepted) this.accepted(id, accepted, type);
    if (accepted && random.next() < 0.3) await this.replay(customer, path, key);
  }

  private accepted(serviceId: string, answer: Answer, type: string): void {
    this.record.actions.push({ serviceId, actionId: answer.body.id, type, at: Date.now() - this.began });
  }

  /** A snapshot of one of its VPSes into an image of the account (at most SNAPSHOTS_PER_ACCOUNT: a 409 beyond). */
  private async snapshot(customer: Customer, random: Random): Promise<void> {
    const id = random.pick(customer.vpsIds);
    const answer = await this.keyed(customer, `/api/services/${id}/instance/snapshots`, randomUUID(), {
      name: `soak-${random.int(1, 1e6)}`,
    });
    if (answer.status === 202) this.accepted(id, answer, 'snapshot');
  }

  /**
   * Daily backups enabled on one of its VPSes (the operator's `backup:run` makes them during the
   * soak), the list read, and now and then a restore of the newest available one.
   */
  private async backups(customer: Customer, random: Random): Promise<void> {
    const id = random.pick(customer.vpsIds);
    const path = `/api/services/${id}/instance/backups`;
    const listed = await this.http.send('GET', `${path}?pageSize=10`, { bearer: customer.apiKey });
    if (listed.status !== 200) return;
    if (!customer.backupsOn?.includes(id)) {
      const enabled = await this.keyed(customer, `${path}/enable`, randomUUID());
      if (enabled.status === 200) (customer.backupsOn ??= []).push(id);
      return;
    }
    const available = ((listed.body?.data ?? []) as { id: string; status: string }[]).find((b) => b.status === 'available');
    if (!available || random.next() >= 0.25) return;
    const answer = await this.keyed(customer, `${path}/${available.id}/restore`, randomUUID());
    if (answer.status === 202) this.accepted(id, answer, 'restore');
  }

  /** A rebuild from the system image or one of the account's snapshots. */
  private async rebuild(customer: Customer, random: Random): Promise<void> {
    const images = await this.images(customer);
    if (!images.length) return;
    const id = random.pick(customer.vpsIds);
    const answer = await this.keyed(customer, `/api/services/${id}/instance/rebuild`, randomUUID(), { image: random.pick(images).id });
    if (answer.status === 202) this.accepted(id, answer, 'rebuild');
  }

  /** Deletes one of the account's snapshots (a 409 while a VPS is built on it). */
  private async dropSnapshot(customer: Customer, random: Random): Promise<void> {
    const snapshots = (await this.images(customer)).filter((image) => image.type === 'snapshot');
    if (snapshots.length) await this.http.send('DELETE', `/api/images/${random.pick(snapshots).id}`, { bearer: customer.apiKey });
  }

  private async images(customer: Customer): Promise<{ id: string; type: string; status: string }[]> {
    const listed = await this.http.send('GET', '/api/images?pageSize=100', { bearer: customer.apiKey });
    return ((listed.body?.data ?? []) as { id: string; slug: string; type: string; status: string }[]).filter(
      (image) => image.status === 'available' && (customer.debian || image.slug !== DEBIAN_IMAGE),
    );
  }

  /** A POST with an Idempotency-Key; a 2xx is kept for the audit's replays. */
  private async keyed(customer: Customer, path: string, key: string, body?: unknown): Promise<Answer> {
    const answer = await this.http.send('POST', path, { bearer: customer.apiKey, body, headers: { 'idempotency-key': key } });
    if (answer.status >= 200 && answer.status < 300 && answer.headers.get('idempotent-replayed') !== 'true') {
      this.record.keyed.push({
        customer: customer.email,
        method: 'POST',
        path,
        body,
        key,
        status: answer.status,
        text: answer.text,
        location: answer.headers.get('location'),
      });
    }
    return answer;
  }

  /** The same request again with the same key: the first answer, marked as replayed. */
  async replay(customer: Customer, path: string, key: string, body?: unknown): Promise<ReplayCheck | undefined> {
    const first = this.record.keyed.find((k) => k.key === key && k.customer === customer.email);
    if (!first) return undefined;
    const sent = Date.now();
    const again = await this.http.send('POST', path, { bearer: customer.apiKey, body, headers: { 'idempotency-key': key } });
    const check: ReplayCheck = {
      key,
      path,
      at: sent - this.began,
      ms: Date.now() - sent,
      firstStatus: first.status,
      replayStatus: again.status,
      same: again.status === first.status && again.text === first.text && again.headers.get('location') === first.location,
      replayedHeader: again.headers.get('idempotent-replayed'),
    };
    this.record.replays.push(check);
    return check;
  }

  private async ticket(customer: Customer, random: Random): Promise<void> {
    const attachmentIds: string[] = [];
    if (random.next() < 0.3) {
      const bytes = Buffer.from(`soak log line ${randomUUID()}\n`.repeat(random.int(1, 200)));
      const presigned = await this.http.send('POST', '/api/support/tickets/attachments/presign', {
        bearer: customer.apiKey,
        body: { files: [{ filename: 'soak.log', contentType: 'text/plain', size: bytes.length }] },
      });
      const upload = presigned.body?.uploads?.[0];
      if (!upload) return;
      // Straight to the object store, as a browser would (the API never sees the bytes).
      const put = await this.http.send('PUT', upload.url, { headers: upload.headers, raw: bytes });
      if (put.status !== 200) return;
      attachmentIds.push(upload.attachmentId);
    }
    const body = {
      subject: `Soak ticket ${random.int(1, 1e6)}`,
      message: 'Something to look at.',
      ...(attachmentIds.length ? { attachmentIds } : {}),
    };
    const key = randomUUID();
    const made = await this.keyed(customer, '/api/support/tickets', key, body);
    if (made.status === 200) {
      customer.ticketIds.push(made.body.id);
      if (random.next() < 0.3) await this.replay(customer, '/api/support/tickets', key, body);
    }
  }

  private async reply(customer: Customer, random: Random): Promise<void> {
    const path = `/api/support/tickets/${random.pick(customer.ticketIds)}/reply`;
    const body = { message: `More detail ${random.int(1, 1e6)}.` };
    const key = randomUUID();
    const made = await this.keyed(customer, path, key, body);
    if (made.status === 201 && random.next() < 0.3) await this.replay(customer, path, key, body);
  }

  /** A key made, used, revoked, and tried again at once: it must be refused from the moment the DELETE answered. */
  private async keys(customer: Customer): Promise<void> {
    const made = await this.http.send('POST', '/api/auth/api-keys', { bearer: customer.apiKey, body: { name: 'short-lived' } });
    if (made.status !== 201) return;
    await this.http.send('GET', '/api/auth/me', { bearer: made.body.key });
    const revoked = await this.http.send('DELETE', `/api/auth/api-keys/${made.body.id}`, { bearer: customer.apiKey });
    if (revoked.status !== 204) return;
    const revocation: Revocation = {
      customer: customer.email,
      keyId: made.body.id,
      key: made.body.key,
      revokedAt: Date.now() - this.began,
      probes: [],
    };
    this.record.revocations.push(revocation);
    // Twice: nginx sends consecutive requests to both replicas.
    for (let i = 0; i < 2; i++) await this.probe(revocation);
  }

  async probe(revocation: Revocation): Promise<void> {
    const answer = await this.http.send('GET', '/api/services?pageSize=1', { bearer: revocation.key });
    revocation.probes.push({ at: Date.now() - this.began, status: answer.status });
  }

  /** An MCP session as an agent opens one: initialize, initialized, a few tool calls, DELETE; each answered within the session. */
  private async mcp(customer: Customer, random: Random): Promise<void> {
    const headers = { accept: 'application/json, text/event-stream' };
    const openedAt = Date.now() - this.began;
    const rpc = (id: number, method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, params });
    const init = await this.http.send('POST', '/mcp', {
      bearer: customer.apiKey,
      headers,
      body: rpc(1, 'initialize', { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'soak', version: '1' } }),
    });
    const session = init.headers.get('mcp-session-id');
    if (init.status !== 200 || !session) return;
    this.record.mcp.sessions++;
    const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': MCP_PROTOCOL_VERSION };
    const steps: [string, unknown][] = [
      ['notifications/initialized', undefined],
      ...Array.from({ length: random.int(1, 4) }, (): [string, unknown] =>
        random.next() < 0.5 ? ['tools/list', {}] : ['tools/call', { name: 'services_list', arguments: {} }],
      ),
    ];
    for (const [i, [method, params]] of steps.entries()) {
      const body = params === undefined ? { jsonrpc: '2.0', method } : rpc(i + 2, method, params);
      const answer = await this.http.send('POST', '/mcp', { bearer: customer.apiKey, headers: inSession, body });
      const wanted = params === undefined ? 202 : 200;
      if (answer.status !== wanted && answer.status !== 0 && answer.status < 500)
        this.record.mcp.failures.push({
          session,
          method,
          status: answer.status,
          text: answer.text.slice(0, 200),
          openedAt,
          at: Date.now() - this.began,
        });
    }
    await this.http.send('DELETE', '/mcp', { bearer: customer.apiKey, headers: inSession });
  }

  private async login(customer: Customer): Promise<void> {
    const session = await this.http.send('POST', '/api/auth/login', { body: { email: customer.email, password: customer.password } });
    if (session.status === 200) await this.http.send('GET', '/api/services', { bearer: session.body.accessToken });
  }
}

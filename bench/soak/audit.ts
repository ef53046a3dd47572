import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { CustomerLoad, McpFailure, ReplayCheck } from './customers';
import { FaultRecord, FaultSchedule } from './faults';
import { Exchange, HttpLog } from './http-log';
import { SoakOperator } from './operator';
import { STOPPED } from './streams';
import { LeakFigures } from './vitals';
import { SoakWorld } from './world';

export interface Check {
  name: string;
  /** What was looked at. */
  checked: number;
  findings: string[];
  /** Reported, never failing the run (the smoke's memory check: half a minute is no warm-up). */
  informational?: boolean;
}

const FINISHED = ['succeeded', 'failed'];

/** The request's `webhook-signature` holds the endpoint's signature of it (checked as sent, whatever its age now). */
function signedBy(secret: string, id: string, headers: IncomingHttpHeaders, body: string): boolean {
  const timestamp = new Date(Number(headers['webhook-timestamp']) * 1000);
  const expected = new Webhook(secret).sign(id, timestamp, body);
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(expected);
}

/** Replays refused with a status a fault explains: no answer to compare (the client sends them again). */
export function refusedDuringFault(replays: ReplayCheck[], faults: FaultSchedule): ReplayCheck[] {
  return replays.filter((r) => !r.same && faults.explains(r.replayStatus, r.at, r.ms).length > 0);
}

/**
 * nginx sends a credential's MCP requests to one replica by a hash ring (deploy/nginx.conf); while a
 * replica is down, and until nginx tries it again (`fail_timeout`, 10 s) after its restart, the
 * ring sends them elsewhere. A session open across either move lives in a process the request no
 * longer reaches.
 */
const RING_RETURNS_MS = 15_000;

/** MCP requests answered 404 because a replica's kill moved their session's requests to another process (the protocol's "start a new session"). */
export function lostWithReplica(failures: McpFailure[], faults: FaultRecord[]): McpFailure[] {
  const kills = faults.filter((f) => f.kind === 'api-1-kill' || f.kind === 'api-2-kill');
  return failures.filter(
    (f) => f.status === 404 && kills.some((k) => k.at <= f.at && (k.endedAt ?? Infinity) + RING_RETURNS_MS >= f.openedAt - 1_000),
  );
}

/**
 * The audit, from outside the API: the database, libvirt, the SMTP server's mailbox and the
 * webhook receiver's log, against what the customers were told.
 */
export class SoakAudit {
  readonly checks: Check[] = [];

  constructor(
    private readonly world: SoakWorld,
    private readonly load: CustomerLoad,
    private readonly http: HttpLog,
    private readonly faults: FaultSchedule,
    private readonly operator: SoakOperator,
    private readonly smoke: boolean,
  ) {}

  private check(name: string, checked: number, findings: string[], informational = false): void {
    this.checks.push({ name, checked, findings, ...(informational ? { informational } : {}) });
  }

  async run(leaks: LeakFigures[], connections: { warm: number; end: number }): Promise<Check[]> {
    this.actions();
    await this.machines();
    await this.attachments();
    await this.backups();
    await this.idempotency();
    this.webhooks();
    this.mail();
    await this.revocations();
    this.mcpSessions();
    this.streams();
    this.crashes();
    this.faultsApplied();
    this.serverErrors();
    this.leaks(leaks, connections);
    return this.checks;
  }

  /** Every power action answered 202 is in the database and finished. */
  private actions(): void {
    const { actions } = this.load.record;
    const rows = this.world.postgres.rows<{
      id: string;
      status: string;
      error_code: string | null;
      error_message: string | null;
      error_detail: string | null;
    }>('SELECT id, status, error_code, error_message, error_detail FROM instance_actions');
    const byId = new Map(rows.map((r) => [r.id, r]));
    const findings: string[] = [];
    for (const action of actions) {
      const row = byId.get(action.actionId);
      if (!row) findings.push(`action ${action.actionId} (${action.type}, answered 202 at ${action.at} ms) is not in instance_actions`);
      else if (!FINISHED.includes(row.status)) findings.push(`action ${action.actionId} (${action.type}) is still ${row.status}`);
    }
    const running = rows.filter((r) => !FINISHED.includes(r.status));
    for (const row of running) if (!actions.some((a) => a.actionId === row.id)) findings.push(`action ${row.id} is still ${row.status}`);
    this.check('every accepted action finished', actions.length, findings);
    const failed = rows.filter((r) => r.status === 'failed');
    const told = failed.map(
      (r) =>
        `action ${r.id} (${actions.find((a) => a.actionId === r.id)?.type ?? '?'}) failed: ${r.error_code} ${r.error_message ?? ''}` +
        (r.error_detail ? ` (${r.error_detail})` : ''),
    );
    this.check('actions that failed (listed to read, not counted against the run)', actions.length, told, true);
  }

  /** Exactly one domain per VPS, in the power state the API shows; no orphan domain or volume. */
  private async machines(): Promise<void> {
    const vpses = this.world.postgres.rows<{ id: string; power_state: string; status: string }>(
      "SELECT s.id, v.power_state, s.status FROM services s JOIN vps_instances v ON v.service_id = s.id WHERE s.type = 'vps'",
    );
    const live = vpses.filter((v) => v.status !== 'terminated');
    const domains = await this.world.domains();
    const running = new Set(await this.world.runningDomains());
    const findings: string[] = [];
    for (const vps of live) {
      const name = `svc-${vps.id}`;
      if (!domains.includes(name)) findings.push(`VPS ${vps.id} has no domain`);
      else if ((vps.power_state === 'running') !== running.has(name))
        findings.push(`VPS ${vps.id} is ${vps.power_state} in the database, its domain ${running.has(name) ? 'runs' : 'does not run'}`);
    }
    for (const domain of domains) if (!live.some((v) => `svc-${v.id}` === domain)) findings.push(`orphan domain ${domain}`);
    const expected = new Set(live.flatMap((v) => [`svc-${v.id}-root.qcow2`, `svc-${v.id}-seed.iso`]));
    const images = this.world.postgres.rows<{ id: string; status: string }>('SELECT id, status FROM images');
    for (const image of images)
      if (['creating', 'deleting', 'uploading'].includes(image.status)) findings.push(`image ${image.id} is still ${image.status}`);
    for (const image of images) if (image.status === 'available') expected.add(`img-${image.id}`);
    const volumes = await this.world.volumes();
    const backups = new Map(
      this.world.postgres.rows<{ id: string; status: string }>('SELECT id, status FROM vps_backups').map((b) => [b.id, b.status]),
    );
    const imageStatus = new Map(images.map((i) => [i.id, i.status]));
    const whose = (volume: string) => {
      const id = volume.slice('img-'.length);
      if (!volume.startsWith('img-')) return '';
      if (imageStatus.has(id)) return ` (image ${imageStatus.get(id)})`;
      return backups.has(id) ? ` (backup ${backups.get(id)})` : ' (no image or backup row)';
    };
    for (const volume of volumes) if (!expected.has(volume)) findings.push(`orphan volume ${volume}${whose(volume)}`);
    for (const volume of expected) if (!volumes.includes(volume)) findings.push(`missing volume ${volume}`);
    this.check('one domain per VPS in its state, one volume per disk and image, none orphaned', live.length + images.length, findings);
  }

  /**
   * Replays during the run gave the first answer (a replay refused with a status a fault explains
   * got no answer to compare: its client sends it again); a sample replayed now gives it too.
   */
  private async idempotency(): Promise<void> {
    const { keyed, customers, replays } = this.load.record;
    const differing = replays.filter((r) => !r.same || r.replayedHeader !== 'true');
    const refused = refusedDuringFault(differing, this.faults);
    const findings = differing
      .filter((r) => !refused.includes(r))
      .map(
        (r) =>
          `replay of ${r.key} at ${r.at} ms (${r.path}): ${r.replayStatus} against ${r.firstStatus}, replayed header ${r.replayedHeader}`,
      );
    const sample = keyed.filter((_, i) => i % Math.max(1, Math.ceil(keyed.length / 200)) === 0);
    for (const first of sample) {
      const customer = customers.find((c) => c.email === first.customer)!;
      const check = await this.load.replay(customer, first.path, first.key, first.body);
      if (check && (!check.same || check.replayedHeader !== 'true'))
        findings.push(`final replay of ${first.key} (${first.path}): ${check.replayStatus} against ${first.status}`);
    }
    this.check(
      `every idempotency key replayed gave the same answer (${refused.length} replays refused during a fault)`,
      replays.length,
      findings,
    );
  }

  /**
   * Each activity entry of an account with an endpoint has exactly one delivery (one webhook id),
   * delivered; the receiver saw every delivery, each entry under one id, each signature valid.
   */
  private webhooks(): void {
    const withEndpoint = this.load.record.customers.filter((c) => c.endpoint);
    const findings: string[] = [];
    let entries = 0;
    const received = new Map<string, Set<string>>();
    for (const hook of this.world.receiver.received) {
      const ids = received.get(hook.json.data.id) ?? new Set();
      ids.add(String(hook.headers['webhook-id']));
      received.set(hook.json.data.id, ids);
    }
    for (const customer of withEndpoint) {
      const endpoint = customer.endpoint!;
      const rows = this.world.postgres.rows<{
        entry: string;
        action: string;
        deliveries: number;
        message_ids: string[];
        statuses: string[];
      }>(
        `SELECT e.id AS entry, e.action,
                count(d.id)::int AS deliveries,
                coalesce(array_agg(d.message_id) FILTER (WHERE d.id IS NOT NULL), '{}') AS message_ids,
                coalesce(array_agg(d.status) FILTER (WHERE d.id IS NOT NULL), '{}') AS statuses
           FROM activity_events e
           JOIN webhook_endpoints w ON w.id = '${endpoint.id}'
           LEFT JOIN webhook_deliveries d ON d.endpoint_id = w.id AND (d.body::jsonb->'data'->>'id')::uuid = e.id
          WHERE e.account_id = '${customer.accountId}' AND e.created_at > w.created_at AND e.action <> 'webhook.test'
          GROUP BY e.id, e.action`,
      );
      entries += rows.length;
      for (const row of rows) {
        if (row.deliveries !== 1) findings.push(`entry ${row.entry} (${row.action}) has ${row.deliveries} deliveries`);
        if (row.statuses.some((s) => s !== 'succeeded'))
          findings.push(`entry ${row.entry} (${row.action}) delivery ${row.statuses.join(',')}`);
        const ids = received.get(row.entry);
        if (!ids) findings.push(`entry ${row.entry} (${row.action}) never reached the receiver`);
        else if (ids.size > 1 || !row.message_ids.every((id) => ids.has(id)))
          findings.push(`entry ${row.entry} reached the receiver as ${[...ids].join(', ')}, stored as ${row.message_ids.join(', ')}`);
      }
    }
    const secrets = new Map(
      this.world.postgres
        .rows<{ message_id: string; endpoint_id: string }>('SELECT message_id, endpoint_id FROM webhook_deliveries')
        .map((r) => [r.message_id, withEndpoint.find((c) => c.endpoint!.id === r.endpoint_id)?.endpoint?.secret]),
    );
    for (const hook of this.world.receiver.received) {
      const id = String(hook.headers['webhook-id']);
      const secret = secrets.get(id);
      if (!secret) findings.push(`webhook ${id}: no delivery of this id`);
      else if (!signedBy(secret, id, hook.headers, hook.body)) findings.push(`webhook ${id}: the signature is not the endpoint's`);
    }
    this.check('one webhook id per activity entry, delivered and signed', entries, findings);
  }

  /** Each mail the customers caused arrived once; no mail job left undone. */
  private mail(): void {
    const findings: string[] = [];
    for (const { to, subject } of this.load.record.expectedMail) {
      const got = this.world.smtp.received.filter((m) => m.to.includes(to) && m.subject === subject).length;
      if (got !== 1) findings.push(`"${subject}" to ${to} arrived ${got} times`);
    }
    const jobs = this.world.postgres.rows<{ state: string; n: number }>(
      "SELECT state, count(*)::int AS n FROM pgboss.job WHERE name = 'mail.send' GROUP BY state",
    );
    for (const { state, n } of jobs) if (state !== 'completed') findings.push(`${n} mail jobs ${state}`);
    const completed = jobs.find((j) => j.state === 'completed')?.n ?? 0;
    if (completed !== this.world.smtp.received.length)
      findings.push(`${completed} mail jobs completed, ${this.world.smtp.received.length} mails received`);
    this.check('every mail went once', this.load.record.expectedMail.length, findings);
  }

  /** No revoked key worked after its DELETE answered; each is refused now. */
  private async revocations(): Promise<void> {
    const { revocations } = this.load.record;
    for (const revocation of revocations) await this.load.probe(revocation);
    // A probe answered 5xx or not at all was refused for another reason (a fault): the 5xx check judges it.
    const answered = (status: number) => status !== 0 && status < 500;
    const findings = revocations.flatMap((r) =>
      r.probes
        .filter((p) => answered(p.status) && p.status !== 401)
        .map((p) => `key ${r.keyId} revoked at ${r.revokedAt} ms answered ${p.status} at ${p.at} ms`),
    );
    this.check('no revoked key worked after its revocation answered', revocations.length, findings);
  }

  /** No replica exited unless the soak killed it (a crash: it was started again, as a supervisor would). */
  private crashes(): void {
    const findings = this.world.apis.flatMap((api) =>
      api.crashes.map((c) => {
        const error = c.output.split('\n').find((line) => /^\w*Error\b|^error:|Unhandled|Unheard/.test(line)) ?? c.output.slice(-300);
        return `${api.name} exited by itself (${c.exit}) at ${c.at - this.faults.began} ms: ${error.trim()}`;
      }),
    );
    this.check('no replica exited by itself', this.world.apis.length, findings);
  }

  /**
   * Every request of an MCP session was answered within it, whichever replica nginx sent it to. A
   * session lives in the process that opened it: a 404 after a replica's kill or return moved the
   * session's requests (lostWithReplica) is the protocol's "start a new session", not a failure.
   */
  private mcpSessions(): void {
    const { sessions, failures } = this.load.record.mcp;
    const lost = lostWithReplica(failures, this.faults.log);
    const findings = failures
      .filter((f) => !lost.includes(f))
      .map((f) => `${f.method} in session ${f.session} (opened at ${f.openedAt} ms) at ${f.at} ms: ${f.status} ${f.text}`);
    this.check(`every MCP session answered its requests (${lost.length} lost with their replica)`, sessions, findings);
  }

  /**
   * Every backup finished (available or failed) with its object in the bucket when available; every
   * object there is an available backup's or one the API has listed as orphaned (to delete); no
   * multipart upload is left begun and neither completed nor aborted.
   */
  private async backups(): Promise<void> {
    const rows = this.world.postgres.rows<{ id: string; status: string; key: string }>(
      'SELECT id, status, storage_key AS key FROM vps_backups',
    );
    const orphans = new Set(
      this.world.postgres.rows<{ key: string }>('SELECT storage_key AS key FROM vps_backup_orphans').map((r) => r.key),
    );
    const { keys, unfinished } = await this.world.backupObjects();
    const objects = new Set(keys);
    const available = new Set(rows.filter((r) => r.status === 'available').map((r) => r.key));
    const findings = [
      ...rows.filter((r) => !['available', 'failed'].includes(r.status)).map((r) => `backup ${r.id} is still ${r.status}`),
      ...rows.filter((r) => r.status === 'available' && !objects.has(r.key)).map((r) => `available backup ${r.id} has no object`),
      ...keys.filter((key) => !available.has(key) && !orphans.has(key)).map((key) => `object ${key} belongs to no available backup`),
      ...unfinished.map((key) => `an upload of ${key} was begun and never completed or aborted`),
    ];
    const counted = `${rows.filter((r) => r.status === 'available').length} available, ${rows.filter((r) => r.status === 'failed').length} failed, ${this.operator.record.backupsQueued} queued, ${orphans.size} orphaned objects listed to delete`;
    this.check(`every backup finished, its object kept, none orphaned (${counted})`, rows.length, findings);
    const failed = this.world.postgres.rows<{ id: string; service_id: string; error_code: string; error_message: string | null }>(
      "SELECT id, service_id, error_code, error_message FROM vps_backups WHERE status = 'failed' ORDER BY created_at",
    );
    const told = failed.map((r) => `backup ${r.id} of VPS ${r.service_id} failed: ${r.error_code} ${r.error_message ?? ''}`);
    this.check('backups that failed (listed to read, not counted against the run)', rows.length, told, true);
    this.debianBackups();
  }

  /**
   * The Debian guests' backups: a copy of a running system is taken under the guest agent's freeze
   * (`filesystem`, as is a stopped one's), `crash` only while the agent is not up (booting, libvirtd
   * frozen). Two kept copies that are both `crash` say the freeze no longer happens.
   */
  private debianBackups(): void {
    const debian = this.load.record.customers.filter((c) => c.debian).flatMap((c) => c.vpsIds);
    if (!debian.length) return;
    const rows = this.world.postgres.rows<{ service_id: string; status: string; consistency: string | null }>(
      `SELECT service_id, status, consistency FROM vps_backups WHERE service_id IN (${debian.map((id) => `'${id}'`).join(',')})`,
    );
    const findings: string[] = [];
    const counts: string[] = [];
    for (const id of debian) {
      const kept = rows.filter((r) => r.service_id === id && r.status === 'available');
      const frozen = kept.filter((r) => r.consistency === 'filesystem').length;
      const failed = rows.filter((r) => r.service_id === id && r.status === 'failed').length;
      counts.push(`${kept.length} kept, ${frozen} of them filesystem-consistent, ${failed} failed`);
      if (kept.length >= 2 && frozen === 0)
        findings.push(`Debian VPS ${id}: ${kept.length} backups kept, none with its filesystems frozen`);
    }
    this.check(`the Debian guest's backups froze its filesystems (${counts.join('; ')})`, debian.length, findings);
  }

  /** Every attached file is in the gateway's bucket; every object there is an attachment's (no orphan). */
  private async attachments(): Promise<void> {
    const rows = this.world.postgres.rows<{ key: string; attached: boolean }>(
      'SELECT storage_key AS key, message_id IS NOT NULL AS attached FROM attachments',
    );
    const objects = new Set(await this.world.attachmentObjects());
    const known = new Set(rows.map((r) => r.key));
    const findings = [
      ...rows.filter((r) => r.attached && !objects.has(r.key)).map((r) => `attached file ${r.key} is not in the bucket`),
      ...[...objects].filter((key) => !known.has(key)).map((key) => `object ${key} belongs to no attachment`),
    ];
    const attached = rows.filter((r) => r.attached).length;
    this.check(`attachments and the gateway's objects match (${attached} attached, ${objects.size} objects)`, rows.length, findings);
  }

  /**
   * The notification streams: none carried another account's notification; each was open at the end
   * with the account's unread count as its last count; each notification made while a stream was
   * open reached it, unless a fault that ends streams or their LISTEN connection was near (then the
   * stream's count is resent, not the notification: docs/decisions/notifications-and-activity.md).
   */
  private streams(): void {
    const findings: string[] = [];
    const nearStreamFault = (at: number) =>
      this.faults.log.some(
        (f) =>
          ['postgres-restart', 'api-1-kill', 'api-2-kill', 'redis-kill'].includes(f.kind) &&
          at >= f.at - 5_000 &&
          at <= (f.endedAt ?? Infinity) + 15_000,
      );
    let received = 0;
    let missedNearFaults = 0;
    for (const watcher of this.load.watchers) {
      const account = watcher.accountId.replace(/[^0-9a-f-]/g, '');
      const made = this.world.postgres.rows<{ id: string; at: number; unread: boolean }>(
        `SELECT id, (extract(epoch FROM created_at) * 1000)::bigint - ${this.http.began} AS at, read_at IS NULL AS unread
           FROM notifications WHERE account_id = '${account}'`,
      );
      const own = new Set(made.map((n) => n.id));
      const ids = watcher.sessions.flatMap((session) => session.notificationIds);
      received += ids.length;
      const foreign = ids.filter((id) => !own.has(id));
      if (foreign.length)
        findings.push(`${watcher.customer}: ${foreign.length} notifications of another account (${foreign.slice(0, 3).join(', ')})`);
      const last = watcher.sessions.at(-1);
      const unread = made.filter((n) => n.unread).length;
      if (!last || last.ending !== STOPPED)
        findings.push(`${watcher.customer}: the stream was not open at the end (${last?.ending ?? 'never opened'})`);
      else if (last.lastCount !== unread)
        findings.push(`${watcher.customer}: the stream's last unread count ${last.lastCount}, the account's ${unread}`);
      for (const session of watcher.sessions) {
        const seen = new Set(session.notificationIds);
        const closed = session.closedAt ?? Infinity;
        for (const n of made) {
          if (n.at < session.openedAt + 5_000 || n.at > closed - 5_000 || seen.has(n.id)) continue;
          if (nearStreamFault(n.at)) missedNearFaults++;
          else
            findings.push(
              `${watcher.customer}: notification ${n.id} made at ${n.at} ms never reached the stream open ${session.openedAt}-${closed} ms`,
            );
        }
      }
    }
    const sessions = this.load.watchers.reduce((sum, w) => sum + w.sessions.length, 0);
    this.check(
      `every stream saw its account's notifications and count (${received} received over ${sessions} connections; ${missedNearFaults} missed beside a fault, counts resent)`,
      this.load.watchers.length,
      findings,
    );
  }

  /** Every fault of the schedule was applied as drawn: a fault that failed tested nothing. */
  private faultsApplied(): void {
    const findings = this.faults.log.filter((f) => f.error).map((f) => `${f.kind} at ${f.at} ms: ${f.error}`);
    this.check('every fault was applied', this.faults.log.length, findings);
  }

  /**
   * Every 5xx (and unanswered request) is listed; those no fault explains are findings. Those only
   * a stall of the database server the probe saw explains are listed apart, with its evidence.
   */
  private serverErrors(): void {
    const bad = this.http.exchanges
      .filter((e) => e.status >= 500 || e.status === 0)
      .map((e) => ({ e, by: this.faults.explains(e.status === 0 ? 504 : e.status, e.at, e.ms) }));
    this.check(
      'no 5xx that a fault does not explain',
      bad.length,
      bad.filter(({ by }) => by.length === 0).map(({ e }) => this.described(e)),
    );
    const stalled = bad.filter(({ by }) => by.length > 0 && by.every((f) => f.kind === 'database-stall'));
    this.check(
      `5xx explained only by a stall of the database server itself (${this.faults.observed.length} stalls seen by the probe)`,
      bad.length,
      stalled.map(({ e, by }) => `${this.described(e)}; ${by[0].detail}`),
      true,
    );
  }

  private described(e: Exchange): string {
    const from = this.http.began + e.at;
    const logged = this.world.apis.flatMap((api) => api.errorsBetween(from, from + e.ms + 1_000).map((line) => `${api.name}: ${line}`));
    // The request's own lines first (the exception filter names the request it answered).
    if (e.requestId) logged.sort((a, b) => Number(b.includes(e.requestId!)) - Number(a.includes(e.requestId!)));
    const said = logged.length ? `; logged: ${logged.slice(0, 3).join(' | ')}` : '';
    return `${e.status || e.error} ${e.method} ${e.route} at ${e.at} ms (${e.ms} ms, request ${e.requestId ?? '-'})${said}`;
  }

  private leaks(leaks: LeakFigures[], connections: { warm: number; end: number }): void {
    const findings: string[] = [];
    for (const figures of leaks) {
      if (!figures.warm || !figures.end) {
        findings.push(
          `${figures.api}: not measured (${figures.warm ? 'warmed up' : `not warmed up: the process was ${Math.round(figures.ageMs / 1000)} s old at the end`}, end ${figures.end ? 'read' : 'not read'})`,
        );
        continue;
      }
      const { warm, end } = figures;
      if (end.rssMb > warm.rssMb * 1.1) findings.push(`${figures.api}: RSS ${warm.rssMb} -> ${end.rssMb} MB`);
      if (warm.liveHeapMb === undefined || end.liveHeapMb === undefined) findings.push(`${figures.api}: live heap not measured`);
      else if (end.liveHeapMb > warm.liveHeapMb * 1.1)
        findings.push(`${figures.api}: live heap ${warm.liveHeapMb} -> ${end.liveHeapMb} MB`);
      if (figures.end.fds > figures.warm.fds + 5)
        findings.push(`${figures.api}: file descriptors ${figures.warm.fds} -> ${figures.end.fds}`);
    }
    if (connections.end > connections.warm) findings.push(`database connections ${connections.warm} -> ${connections.end}`);
    this.check('memory within 10% of warm-up, descriptors and connections back', leaks.length, findings, this.smoke);
  }
}

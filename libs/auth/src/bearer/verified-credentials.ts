import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, CREDENTIAL_CHANGES_CHANNEL, PgListener, Principal } from '@app/core';

/** The longest a verified credential is trusted without a lookup; the change notice drops it sooner. */
const MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 10_000;
/** A LISTEN connection slower than this to answer is not waited for: the credential is looked up. */
const ROUND_TRIP_TIMEOUT_MS = 1_000;

export interface VerifiedCredential {
  /** Without the request's facts: each request adds its own. */
  principal: Principal;
  /** Epoch ms after which the credential is looked up again (its own expiry, or the age limit). */
  until: number;
  /** When its use was last passed on (lastUsedAt is kept to the minute). */
  usedAt: number;
}

/**
 * Credentials this process verified, by the SHA-256 of the token: a dashboard's polling
 * and a script's calls cost no credential lookup. On PostgreSQL only, and only while the process
 * LISTENs: a database trigger NOTIFYs the account of any key, session or membership changed or
 * deleted, in the changing transaction (a session's notice names its login). Before a remembered credential is trusted, a round trip on the LISTEN
 * connection (shared by the requests that arrive together) reads every notice committed before the
 * request came, so a revocation answered by one replica is refused by every other on the very next
 * request. A verification that began before a notice is not remembered.
 */
@Injectable()
export class VerifiedCredentials implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly entries = new Map<string, VerifiedCredential & { ids: string[] }>();
  private readonly byAccount = new Map<string, Set<string>>();
  private listener: PgListener | null = null;
  /** Counts notices: what was verified across one is not remembered. */
  private notices = 0;
  private reading: Promise<void> | null = null;
  private readingNext: Promise<void> | null = null;

  constructor(private readonly config: AppConfig) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.databaseUrl) return; // the embedded database: every request looks its credential up
    this.listener = new PgListener(
      this.config.databaseUrl,
      CREDENTIAL_CHANGES_CHANNEL,
      { message: (accountId) => this.forgetAccount(accountId), resumed: () => this.forgetAll() },
      'VerifiedCredentials',
    );
    await this.listener.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
    this.forgetAll();
  }

  /** Taken before a lookup, handed to remember() after it. */
  get epoch(): number {
    return this.notices;
  }

  async recall(id: string): Promise<VerifiedCredential | undefined> {
    if (!this.listener?.connected) return undefined;
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (Date.now() >= entry.until) {
      this.forget(id);
      return undefined;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('late')), ROUND_TRIP_TIMEOUT_MS)));
    try {
      await Promise.race([this.noticesRead(), late]);
    } catch {
      return undefined; // the LISTEN connection fails or stalls: look the credential up
    } finally {
      clearTimeout(timer);
    }
    return this.entries.get(id) === entry ? entry : undefined;
  }

  /**
   * Resolves once every notice committed before the call has been read: a round trip on the LISTEN
   * connection begun after the call. Requests that come while one is under way share the next, so
   * under load it costs one statement per batch of requests, not one per request.
   */
  private noticesRead(): Promise<void> {
    if (!this.reading) {
      this.reading = this.listener!.roundTrip().finally(() => (this.reading = null));
      return this.reading;
    }
    this.readingNext ??= this.reading
      .catch(() => undefined)
      .then(() => {
        this.readingNext = null;
        return this.noticesRead();
      });
    return this.readingNext;
  }

  remember(id: string, principal: Principal, validUntil: Date | null, epoch: number): void {
    if (!this.listener?.connected || epoch !== this.notices) return;
    const now = Date.now();
    const until = Math.min(now + MAX_AGE_MS, validUntil?.getTime() ?? Infinity);
    if (until <= now) return;
    this.forget(id);
    // Full: forget the oldest (a Map iterates in insertion order).
    if (this.entries.size >= MAX_ENTRIES) this.forget(this.entries.keys().next().value!);
    const { request: _request, ...bare } = principal;
    // A notice names an account (its keys, its members) or a login (its sessions): either drops it.
    const ids = [...new Set([principal.accountId, principal.loginId])];
    this.entries.set(id, { ids, principal: bare, until, usedAt: now });
    for (const accountId of ids) {
      const known = this.byAccount.get(accountId) ?? new Set<string>();
      known.add(id);
      this.byAccount.set(accountId, known);
    }
  }

  private forgetAccount(accountId: string): void {
    this.notices++;
    for (const id of [...(this.byAccount.get(accountId) ?? [])]) this.forget(id);
    this.byAccount.delete(accountId);
  }

  private forgetAll(): void {
    this.notices++;
    this.entries.clear();
    this.byAccount.clear();
  }

  private forget(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    for (const accountId of entry.ids) {
      const ids = this.byAccount.get(accountId);
      ids?.delete(id);
      if (ids && !ids.size) this.byAccount.delete(accountId);
    }
  }
}

import type { Logger } from '@nestjs/common';

/** Something held open for a caller (an event stream, a console) for as long as its credential works. */
export interface CredentialHold {
  accountId: string;
  /** The login whose credential it is (announced when its sessions end, whichever account they acted on). */
  loginId?: string;
  /** Holds opened with the same credential share a key: one check answers for all of them. */
  key: string;
  /** Verifies the credential again (a revoked key, an ended session, a changed password). */
  stillValid(): Promise<boolean>;
  /** The credential no longer works: the holder closes it (and drops it from the rechecks). */
  ended(): void | Promise<void>;
}

export interface CredentialRecheckOptions {
  /** Every hold's credential is verified again this long after its last check, whatever was announced. */
  everyMs: number;
  /** Checks run at once: the rest of the pool stays free for requests. */
  concurrency: number;
  /** What is held, for the log ("stream", "console"). */
  what: string;
}

/** A backstop check pass runs this many times per period: each hold is checked within a twelfth of it after falling due. */
const TICKS_PER_PERIOD = 12;

/**
 * The credential recheck shared by everything held open for a caller: the holds by account, a check
 * of one account's holds when a revocation is announced (or of all, after announcements may have
 * been missed), and a backstop timer that checks each hold again `everyMs` after its last check.
 * A check that fails keeps the hold, until the next one.
 */
export class CredentialRechecks<H extends CredentialHold = CredentialHold> {
  private readonly verifiedAt = new Map<H, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly options: CredentialRecheckOptions,
  ) {}

  /** Holds from now on, checked a moment ago. */
  add(hold: H): void {
    this.verifiedAt.set(hold, Date.now());
    this.timer ??= setInterval(() => void this.checkDue(), Math.max(1, this.options.everyMs / TICKS_PER_PERIOD)).unref();
  }

  drop(hold: H): void {
    this.verifiedAt.delete(hold);
    if (this.verifiedAt.size || !this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
  }

  /** After an announcement for the account (or for the login holding it). */
  recheck(accountId: string): Promise<void> {
    return this.verify([...this.verifiedAt.keys()].filter((hold) => hold.accountId === accountId || hold.loginId === accountId));
  }

  /** After announcements may have been missed (LISTEN was down). */
  recheckAll(): Promise<void> {
    return this.verify([...this.verifiedAt.keys()]);
  }

  /** Ends the holds whose credential no longer works, `concurrency` credentials at a time. */
  async verify(holds: H[]): Promise<void> {
    const byKey = new Map<string, H[]>();
    for (const hold of holds) byKey.set(hold.key, [...(byKey.get(hold.key) ?? []), hold]);
    const groups = [...byKey.values()];
    const worker = async () => {
      for (let group = groups.pop(); group; group = groups.pop()) await this.verifyGroup(group);
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, groups.length) }, worker));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.verifiedAt.clear();
  }

  private async verifyGroup(group: H[]): Promise<void> {
    try {
      const valid = await group[0].stillValid();
      for (const hold of group) {
        if (!this.verifiedAt.has(hold)) continue;
        if (valid) this.verifiedAt.set(hold, Date.now());
        else {
          this.drop(hold);
          await hold.ended();
        }
      }
    } catch (err) {
      this.logger.warn(`Could not check a ${this.options.what}'s credential: ${(err as Error).message}`);
    }
  }

  private checkDue(): Promise<void> {
    const due = Date.now() - this.options.everyMs;
    return this.verify([...this.verifiedAt].filter(([, at]) => at <= due).map(([hold]) => hold));
  }
}

/**
 * At most `limit()` pieces of leased work at once in this process; the others wait their turn.
 * Once `stopping()`, no slot is handed out: a waiter throws `stoppedMessage`, and its job is
 * retried by the next process (`wakeAll` ends the waits at shutdown).
 */
export class WorkSlots {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: () => number,
    private readonly stopping: () => boolean,
    private readonly stoppedMessage: string,
  ) {}

  async take(): Promise<void> {
    if (this.stopping()) throw new Error(this.stoppedMessage);
    if (this.taken < this.limit()) {
      this.taken++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.stopping()) throw new Error(this.stoppedMessage);
  }

  /** A freed slot goes to the next waiter, if any. */
  free(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.taken--;
  }

  wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }
}

/**
 * Credentials' last_used_at, written off the request path: a request only adds the id, and the
 * collected ids are written in one statement every few seconds (and once more at shutdown). A
 * failed write keeps the ids for the next round.
 */
export class LastUsedBuffer {
  private readonly ids = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (ids: string[]) => Promise<void>,
    intervalMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs).unref();
  }

  add(id: string): void {
    this.ids.add(id);
  }

  async flush(): Promise<void> {
    if (!this.ids.size) return;
    const ids = [...this.ids];
    this.ids.clear();
    await this.write(ids).catch(() => ids.forEach((id) => this.ids.add(id)));
  }

  /** For `beforeApplicationShutdown`: no more rounds, one last write. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

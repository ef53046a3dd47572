/**
 * Completes jobs with as few statements as the load allows (a group commit): one statement in
 * flight per job name, and the jobs that end while it runs are completed together by the next.
 * Idle, a job's completion goes out at once; under load, N jobs cost one statement instead of N.
 */
export class GroupedCompletions {
  private readonly waiting = new Map<string, Batch>();
  private readonly sending = new Set<string>();

  constructor(private readonly completeAll: (name: string, ids: string[]) => Promise<void>) {}

  /** Settles when the statement that completed the job has answered (rejects if it failed). */
  complete(name: string, id: string): Promise<void> {
    let batch = this.waiting.get(name);
    if (!batch) {
      batch = new Batch();
      this.waiting.set(name, batch);
    }
    batch.ids.push(id);
    const done = batch.done;
    if (!this.sending.has(name)) void this.send(name);
    return done;
  }

  private async send(name: string): Promise<void> {
    this.sending.add(name);
    try {
      for (let batch = this.waiting.get(name); batch; batch = this.waiting.get(name)) {
        this.waiting.delete(name);
        await this.completeAll(name, batch.ids).then(batch.resolve, batch.reject);
      }
    } finally {
      this.sending.delete(name);
    }
  }
}

class Batch {
  readonly ids: string[] = [];
  resolve!: () => void;
  reject!: (err: unknown) => void;
  readonly done = new Promise<void>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
}

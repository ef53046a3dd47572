import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { SessionsRepository } from './sessions.repository';

const FLUSH_INTERVAL_MS = 5_000;

/** Sessions' lastUsedAt, written in batches off the request path (to the minute), as for API keys. */
@Injectable()
export class SessionActivity implements BeforeApplicationShutdown {
  private readonly touched = new Set<string>();
  private readonly timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS).unref();

  constructor(private readonly sessions: SessionsRepository) {}

  used(sessionId: string): void {
    this.touched.add(sessionId);
  }

  async flush(): Promise<void> {
    if (!this.touched.size) return;
    const ids = [...this.touched];
    this.touched.clear();
    await this.sessions.touch(ids).catch(() => ids.forEach((id) => this.touched.add(id)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

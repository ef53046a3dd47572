import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { LastUsedBuffer } from '@app/core';
import { SessionsRepository } from './sessions.repository';

/** Sessions' lastUsedAt, written in batches off the request path (to the minute), as for API keys. */
@Injectable()
export class SessionActivity implements BeforeApplicationShutdown {
  private readonly buffer = new LastUsedBuffer((ids) => this.sessions.touch(ids));

  constructor(private readonly sessions: SessionsRepository) {}

  used(sessionId: string): void {
    this.buffer.add(sessionId);
  }

  flush(): Promise<void> {
    return this.buffer.flush();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.buffer.stop();
  }
}

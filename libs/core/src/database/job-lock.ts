import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

/**
 * Scheduled jobs run on every replica's timer, but only one replica does the work: a PostgreSQL
 * session advisory lock named after the job (try-lock, so the others skip this round). The
 * embedded database has one process by construction.
 */
@Injectable()
export class JobLock {
  private readonly logger = new Logger('Jobs');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async runExclusive(job: string, work: () => Promise<void>): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    if (!this.config.databaseUrl) {
      await this.guarded(job, work);
      return true;
    }
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`job:${job}`]);
      if (!locked) return false;
      try {
        await this.guarded(job, work);
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`job:${job}`]);
      }
      return true;
    } catch (err) {
      this.logger.warn(`Job ${job} skipped: ${(err as Error).message}`);
      return false;
    } finally {
      await runner.release();
    }
  }

  private async guarded(job: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      this.logger.error(`Job ${job} failed: ${(err as Error).stack ?? String(err)}`);
    }
  }
}

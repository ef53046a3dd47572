import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { SecretBox } from '../crypto/secret-box';
import { JobQueue } from '../jobs/job-queue';
import { Mailer, MailMessage } from './mailer';

const SEND_MAIL = 'mail.send';
/** With the default 30 s first delay, doubling: about 8.5 hours of retries in all. */
const RETRY_LIMIT = 10;

interface SendMailJob {
  /** The message, sealed: mails carry single-use links, which stay secret at rest in the queue. */
  sealed: string;
}

/**
 * Mail is never sent on the request path: it is queued (in the caller's transaction when given),
 * and a worker sends it, retrying with backoff while the mail server is down.
 */
@Injectable()
export class OutboundMail implements OnModuleInit {
  private readonly logger = new Logger('Mail');

  constructor(
    private readonly jobs: JobQueue,
    private readonly mailer: Mailer,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<SendMailJob>(SEND_MAIL, async (job) => {
      const message = JSON.parse(this.secrets.open(job.sealed)) as MailMessage;
      try {
        await this.mailer.send(message);
      } catch (err) {
        this.logger.warn(`Sending "${message.subject}" failed (will retry): ${(err as Error).message}`);
        throw err;
      }
    });
  }

  async queue(message: MailMessage, manager?: EntityManager): Promise<void> {
    const job: SendMailJob = { sealed: this.secrets.seal(JSON.stringify(message)) };
    await this.jobs.send(
      SEND_MAIL,
      job,
      { retryLimit: RETRY_LIMIT, retryDelaySeconds: this.config.mail.retryDelaySeconds, retryBackoff: true },
      manager,
    );
  }
}

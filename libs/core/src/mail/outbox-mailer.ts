import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { Mailer, MailMessage } from './mailer';

/** The embedded default: each message as an .eml file under DATA_DIR/outbox; the path is logged. */
export class OutboxMailer extends Mailer {
  private readonly logger = new Logger('Mail');
  /** nodemailer (its MIME composer) loads with the first mail: a process that sends none keeps its memory. */
  private composer: Promise<Transporter> | null = null;

  constructor(
    private readonly directory: string,
    private readonly from: string,
  ) {
    super();
  }

  async send(message: MailMessage): Promise<void> {
    this.composer ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    );
    const { message: eml } = (await (await this.composer).sendMail({ from: this.from, ...message })) as { message: Buffer };
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const file = join(this.directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
    // Written whole under another name first: scripts/mail-link.js polls for *.eml files.
    await writeFile(`${file}.part`, eml, { mode: 0o600 });
    await rename(`${file}.part`, file);
    this.logger.log(`Mail "${message.subject}" written to ${file}`);
  }
}

import { createTransport, Transporter } from 'nodemailer';
import { Mailer, MailMessage } from './mailer';

/** Sends through an SMTP server (smtp:// or smtps:// URL, credentials in it), via nodemailer. */
export class SmtpMailer extends Mailer {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    super();
    this.transport = createTransport(url);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }
}

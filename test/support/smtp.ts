import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitForOrFail } from './wait-for';

export interface ReceivedMail {
  to: string[];
  /** The raw message with quoted-printable soft breaks and escapes undone. */
  body: string;
  subject: string;
}

/** A real SMTP server on loopback (the `smtp-server` package) that keeps what it receives. */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  private server?: SMTPServer;

  constructor(public port = 0) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const body = decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8'));
          const subject = /^Subject: (.*)$/m.exec(body)?.[1]?.trim() ?? '';
          this.received.push({ to: session.envelope.rcptTo.map((r) => r.address), body, subject });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Waits for a mail to this address whose subject matches. */
  async waitForMail(to: string, subject: RegExp, timeoutMs = 15_000): Promise<ReceivedMail> {
    const mail = await waitForOrFail(
      async () => this.received.find((m) => m.to.includes(to) && subject.test(m.subject)),
      (found) => found !== undefined,
      timeoutMs,
      () => `no mail "${subject}" to ${to}; got: ${this.received.map((m) => `${m.to} ${m.subject}`).join('; ')}`,
    );
    return mail!;
  }

  mailsTo(to: string): ReceivedMail[] {
    return this.received.filter((m) => m.to.includes(to));
  }
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The token of the first link to `path` in a mail. */
export function linkToken(mail: ReceivedMail, path: string): string {
  const match = new RegExp(`https?://[^\\s"<>]+${path}\\?token=([A-Za-z0-9_%-]+)`).exec(mail.body);
  if (!match) throw new Error(`no ${path} link in mail: ${mail.body}`);
  return decodeURIComponent(match[1]);
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Outbound mail. Adapters: SMTP (SMTP_URL) and the embedded .eml outbox under DATA_DIR/outbox. */
export abstract class Mailer {
  abstract send(message: MailMessage): Promise<void>;
}

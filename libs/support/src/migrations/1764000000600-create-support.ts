import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSupport1764000000600 implements MigrationInterface {
  name = 'CreateSupport1764000000600';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SEQUENCE ticket_reference_seq`);
    await db.query(`
      CREATE TABLE tickets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        reference varchar(16) NOT NULL DEFAULT 'T-' || lpad(nextval('ticket_reference_seq')::text, 6, '0'),
        subject varchar(200) NOT NULL,
        status varchar(20) NOT NULL DEFAULT 'open'
          CONSTRAINT tickets_status_check CHECK (status IN ('open', 'answered', 'customer_reply', 'closed')),
        priority varchar(10) NOT NULL DEFAULT 'medium' CONSTRAINT tickets_priority_check CHECK (priority IN ('low', 'medium', 'high')),
        department varchar(20) NOT NULL DEFAULT 'general'
          CONSTRAINT tickets_department_check CHECK (department IN ('general', 'billing', 'technical', 'abuse')),
        service_id uuid REFERENCES services(id) ON DELETE SET NULL,
        reply_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_reply_at timestamptz,
        closed_at timestamptz,
        CONSTRAINT tickets_reference_key UNIQUE (reference)
      )`);
    await db.query(`CREATE INDEX tickets_account_list_idx ON tickets (account_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX tickets_account_status_list_idx ON tickets (account_id, status, created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE ticket_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
        author_type varchar(10) NOT NULL CONSTRAINT ticket_messages_author_check CHECK (author_type IN ('customer', 'staff')),
        author_name varchar(100) NOT NULL,
        message text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX ticket_messages_ticket_idx ON ticket_messages (ticket_id, created_at, id)`);
    await db.query(`
      CREATE TABLE attachments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        message_id uuid REFERENCES ticket_messages(id) ON DELETE CASCADE,
        filename varchar(255) NOT NULL,
        content_type varchar(100) NOT NULL,
        declared_size integer NOT NULL CONSTRAINT attachments_declared_size_check CHECK (declared_size > 0),
        size integer,
        storage_key varchar(200) NOT NULL,
        upload_expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX attachments_message_idx ON attachments (message_id) WHERE message_id IS NOT NULL`);
    await db.query(`CREATE INDEX attachments_unreferenced_idx ON attachments (upload_expires_at) WHERE message_id IS NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE attachments`);
    await db.query(`DROP TABLE ticket_messages`);
    await db.query(`DROP TABLE tickets`);
    await db.query(`DROP SEQUENCE ticket_reference_seq`);
  }
}

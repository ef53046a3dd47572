import { MigrationInterface, QueryRunner } from 'typeorm';

/** A customer's message names the member who wrote it (and the key they used); messages from before teams name none. */
export class TicketMessageMembers1764000004840 implements MigrationInterface {
  name = 'TicketMessageMembers1764000004840';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE ticket_messages
        ADD COLUMN author_member_id uuid,
        ADD COLUMN author_email varchar(254),
        ADD COLUMN author_key_id uuid`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE ticket_messages DROP COLUMN author_member_id, DROP COLUMN author_email, DROP COLUMN author_key_id`);
  }
}

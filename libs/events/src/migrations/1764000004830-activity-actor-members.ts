import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every entry names the member who acted (and the key they used); entries made before teams name their account's owner. */
export class ActivityActorMembers1764000004830 implements MigrationInterface {
  name = 'ActivityActorMembers1764000004830';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE activity_events
        ADD COLUMN actor_member_id uuid,
        ADD COLUMN actor_email varchar(254),
        ADD COLUMN actor_key_id uuid`);
    await db.query(`
      UPDATE activity_events e SET actor_member_id = m.id, actor_email = a.email
        FROM account_members m JOIN accounts a ON a.id = m.login_id
        WHERE e.actor_type = 'account' AND m.account_id = e.account_id AND m.login_id::text = e.actor_id`);
    await db.query(`
      UPDATE activity_events e SET actor_member_id = k.member_id, actor_email = a.email, actor_key_id = k.id
        FROM api_keys k JOIN account_members m ON m.id = k.member_id JOIN accounts a ON a.id = m.login_id
        WHERE e.actor_type = 'api_key' AND k.id::text = e.actor_id`);
    await db.query(`CREATE INDEX activity_events_actor_idx ON activity_events (account_id, actor_member_id, created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX activity_events_actor_idx`);
    await db.query(`ALTER TABLE activity_events DROP COLUMN actor_member_id, DROP COLUMN actor_email, DROP COLUMN actor_key_id`);
  }
}

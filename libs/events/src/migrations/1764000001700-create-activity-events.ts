import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateActivityEvents1764000001700 implements MigrationInterface {
  name = 'CreateActivityEvents1764000001700';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE activity_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        action varchar(60) NOT NULL,
        entity_type varchar(40),
        entity_id uuid,
        actor_type varchar(10) NOT NULL CONSTRAINT activity_events_actor_type_check CHECK (actor_type IN ('account', 'api_key', 'staff', 'system')),
        actor_id varchar(100),
        actor_name varchar(200),
        ip varchar(64),
        user_agent varchar(512),
        request_id varchar(128),
        status varchar(10) NOT NULL CONSTRAINT activity_events_status_check CHECK (status IN ('succeeded', 'failed')),
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The list, newest first, and the since= filter (a range on the same index).
    await db.query(`CREATE INDEX activity_events_account_list_idx ON activity_events (account_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX activity_events_action_idx ON activity_events (account_id, action, created_at DESC, id DESC)`);
    await db.query(
      `CREATE INDEX activity_events_entity_idx ON activity_events (account_id, entity_type, entity_id, created_at DESC, id DESC)`,
    );
    // The retention purge.
    await db.query(`CREATE INDEX activity_events_created_idx ON activity_events (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE activity_events`);
  }
}

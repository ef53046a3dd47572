import { MigrationInterface, QueryRunner } from 'typeorm';

const STATUSES = `'pending', 'active', 'suspended', 'cancelled', 'terminated'`;
const TYPES = `'vps', 'object_storage'`;
const CYCLES = `'hourly', 'monthly', 'quarterly', 'semi_annually', 'annually', 'biennially', 'triennially', 'one_time'`;
const POWER_STATES = `'running', 'stopped', 'starting', 'stopping'`;

export class CreateServices1764000000400 implements MigrationInterface {
  name = 'CreateServices1764000000400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE services (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id),
        name varchar(100) NOT NULL,
        type varchar(20) NOT NULL CONSTRAINT services_type_check CHECK (type IN (${TYPES})),
        status varchar(20) NOT NULL CONSTRAINT services_status_check CHECK (status IN (${STATUSES})),
        price numeric(12,4) NOT NULL CONSTRAINT services_price_check CHECK (price >= 0),
        currency char(3) NOT NULL,
        billing_cycle varchar(20) NOT NULL CONSTRAINT services_cycle_check CHECK (billing_cycle IN (${CYCLES})),
        next_due_date timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The list is WHERE account_id = $1 [AND status = $2] [AND type = $3] ORDER BY created_at DESC, id DESC:
    // one index per filter shape, each also covering the deferred join's first step (ids only).
    await db.query(`CREATE INDEX services_account_list_idx ON services (account_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX services_account_status_list_idx ON services (account_id, status, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX services_account_type_list_idx ON services (account_id, type, created_at DESC, id DESC)`);

    // Totals for the list without counting rows: one counter per account, type and status, kept
    // by statement triggers in the writing transaction, so every writer (API, CLI, bulk SQL) keeps it right.
    await db.query(`
      CREATE TABLE service_counts (
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        type varchar(20) NOT NULL,
        status varchar(20) NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, type, status)
      )`);
    // Rows are upserted in key order so concurrent writers lock counters in the same order.
    await db.query(`
      CREATE FUNCTION service_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO service_counts (account_id, type, status, n)
        SELECT account_id, type, status, count(*) FROM inserted_services
         GROUP BY account_id, type, status ORDER BY account_id, type, status
        ON CONFLICT (account_id, type, status) DO UPDATE SET n = service_counts.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE FUNCTION service_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO service_counts (account_id, type, status, n)
        SELECT account_id, type, status, sum(delta) FROM (
          SELECT account_id, type, status, 1 AS delta FROM new_services
          UNION ALL
          SELECT account_id, type, status, -1 AS delta FROM old_services
        ) changes
         GROUP BY account_id, type, status HAVING sum(delta) <> 0 ORDER BY account_id, type, status
        ON CONFLICT (account_id, type, status) DO UPDATE SET n = service_counts.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE FUNCTION service_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE service_counts c SET n = c.n - d.n
          FROM (SELECT account_id, type, status, count(*) AS n FROM deleted_services GROUP BY account_id, type, status) d
         WHERE c.account_id = d.account_id AND c.type = d.type AND c.status = d.status;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER services_count_insert AFTER INSERT ON services
        REFERENCING NEW TABLE AS inserted_services FOR EACH STATEMENT EXECUTE FUNCTION service_counts_after_insert()`);
    await db.query(`
      CREATE TRIGGER services_count_update AFTER UPDATE ON services
        REFERENCING OLD TABLE AS old_services NEW TABLE AS new_services FOR EACH STATEMENT EXECUTE FUNCTION service_counts_after_update()`);
    await db.query(`
      CREATE TRIGGER services_count_delete AFTER DELETE ON services
        REFERENCING OLD TABLE AS deleted_services FOR EACH STATEMENT EXECUTE FUNCTION service_counts_after_delete()`);

    await db.query(`
      CREATE TABLE vps_instances (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        power_state varchar(10) NOT NULL CONSTRAINT vps_instances_power_state_check CHECK (power_state IN (${POWER_STATES})),
        region varchar(32) NOT NULL,
        ipv4 varchar(15),
        ipv6 varchar(39),
        provider_ref varchar(200),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await db.query(`
      CREATE TABLE instance_actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        type varchar(10) NOT NULL CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot')),
        status varchar(10) NOT NULL CONSTRAINT instance_actions_status_check CHECK (status IN ('running', 'succeeded', 'failed')),
        from_state varchar(10) NOT NULL,
        provider_task varchar(200),
        error_code varchar(64),
        error_message varchar(500),
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        CONSTRAINT instance_actions_finished_check CHECK ((status = 'running') = (finished_at IS NULL))
      )`);
    // At most one running action per instance, whatever the code above it does.
    await db.query(`CREATE UNIQUE INDEX instance_actions_one_running_idx ON instance_actions (service_id) WHERE status = 'running'`);
    await db.query(`CREATE INDEX instance_actions_list_idx ON instance_actions (service_id, started_at DESC, id DESC)`);

    await db.query(`
      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        token_hash char(64) NOT NULL CONSTRAINT console_sessions_token_key UNIQUE,
        target_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await db.query(`CREATE INDEX console_sessions_service_idx ON console_sessions (service_id, expires_at)`);

    await db.query(`
      CREATE TABLE object_storage_credentials (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        endpoint varchar(200) NOT NULL,
        region varchar(32) NOT NULL,
        bucket varchar(63) NOT NULL,
        access_key_id varchar(64) NOT NULL CONSTRAINT object_storage_credentials_key_id_key UNIQUE,
        secret_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    // The compute simulator's own state (a real hypervisor keeps this itself): one task per
    // idempotency key, finished once completes_at has passed.
    await db.query(`
      CREATE TABLE compute_simulator_tasks (
        id varchar(100) PRIMARY KEY,
        instance_ref varchar(200) NOT NULL,
        type varchar(10) NOT NULL,
        completes_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX compute_simulator_tasks_instance_idx ON compute_simulator_tasks (instance_ref, created_at DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of [
      'compute_simulator_tasks',
      'object_storage_credentials',
      'console_sessions',
      'instance_actions',
      'vps_instances',
      'services',
      'service_counts',
    ]) {
      await db.query(`DROP TABLE ${table}`);
    }
    for (const fn of ['service_counts_after_insert', 'service_counts_after_update', 'service_counts_after_delete']) {
      await db.query(`DROP FUNCTION ${fn}()`);
    }
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams: an account has members, each a login (a row of accounts: email, password, 2FA, sessions)
 * with a role. Every existing account becomes a one-owner team of its own login, nothing else changes
 * (the areas that hang on members follow in their own migrations). A membership changed or gone
 * tells the API processes on core's CREDENTIAL_CHANGES_CHANNEL (they drop what they remembered).
 */
export class AccountMembers1764000004800 implements MigrationInterface {
  name = 'AccountMembers1764000004800';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE account_members (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        login_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        role varchar(10) NOT NULL CONSTRAINT account_members_role_check CHECK (role IN ('owner', 'admin', 'member', 'read_only')),
        joined_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT account_members_login_unique UNIQUE (account_id, login_id)
      )`);
    await db.query(`CREATE INDEX account_members_login_idx ON account_members (login_id)`);
    await db.query(`INSERT INTO account_members (account_id, login_id, role, joined_at) SELECT id, id, 'owner', created_at FROM accounts`);
    // Every account is born a one-owner team of its own login, whatever makes it (sign-up, the operator, a seed).
    await db.query(`
      CREATE FUNCTION account_owner_membership() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO account_members (account_id, login_id, role, joined_at) VALUES (NEW.id, NEW.id, 'owner', NEW.created_at);
        RETURN NULL;
      END $$`);
    await db.query(
      `CREATE TRIGGER accounts_owner_membership AFTER INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION account_owner_membership()`,
    );
    await db.query(`
      CREATE FUNCTION account_member_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('credential_changes', OLD.account_id::text);
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER account_members_changed AFTER UPDATE OF role OR DELETE ON account_members
        FOR EACH ROW EXECUTE FUNCTION account_member_changed()`);
    await db.query(`
      CREATE TABLE account_invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        email varchar(254) NOT NULL,
        role varchar(10) NOT NULL CONSTRAINT account_invitations_role_check CHECK (role IN ('owner', 'admin', 'member', 'read_only')),
        token_hash char(64) NOT NULL CONSTRAINT account_invitations_token_unique UNIQUE,
        invited_by uuid REFERENCES account_members(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz
      )`);
    await db.query(
      `CREATE UNIQUE INDEX account_invitations_pending_idx ON account_invitations (account_id, email) WHERE accepted_at IS NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE account_invitations`);
    await db.query(`DROP TRIGGER accounts_owner_membership ON accounts`);
    await db.query(`DROP FUNCTION account_owner_membership()`);
    await db.query(`DROP TRIGGER account_members_changed ON account_members`);
    await db.query(`DROP FUNCTION account_member_changed()`);
    await db.query(`DROP TABLE account_members`);
  }
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { waitForOrFail } from './wait-for';

/**
 * Confirms an account's address as its owner does with the mailed link: read from the `.eml`
 * outbox of a server process that has no SMTP_URL (`DATA_DIR/outbox`), then posted to the API.
 * Unconfirmed accounts may not create API keys or webhooks.
 */
export async function confirmEmailFromOutbox(baseUrl: string, dataDir: string, email: string): Promise<void> {
  const outbox = join(dataDir, 'outbox');
  const token = await waitForOrFail(
    async () => {
      let files: string[] = [];
      try {
        files = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
      } catch {
        return null; // no mail written yet
      }
      for (const file of files) {
        const eml = readFileSync(join(outbox, file), 'utf8')
          .replace(/=\r?\n/g, '')
          .replace(/=3D/g, '=');
        const match = new RegExp(`^To: ${email.replace(/[.+]/g, '\\$&')}$[\\s\\S]*?/confirm-email\\?token=([A-Za-z0-9_%-]+)`, 'mi').exec(
          eml,
        );
        if (match) return decodeURIComponent(match[1]);
      }
      return null;
    },
    (found) => found !== null,
    15_000,
    () => `no verification mail to ${email} in ${outbox}`,
  );
  await request(baseUrl).post('/api/auth/email/verify').send({ token }).expect(204);
}

/** The same for tests whose server processes share a PostgreSQL database and write no outbox the test can name. */
export async function confirmEmailInDatabase(databaseUrl: string, email: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('UPDATE accounts SET email_verified_at = now() WHERE email = $1', [email.toLowerCase()]);
  } finally {
    await client.end();
  }
}

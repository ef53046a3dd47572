import { Client } from 'pg';
import { TEST_DATABASE_URL } from './test-env';

/** On PostgreSQL: a fresh database for the run (apps apply migrations when they start). */
export default async function globalSetup(): Promise<void> {
  if (!TEST_DATABASE_URL) return;
  const url = new URL(TEST_DATABASE_URL);
  const name = url.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`TEST_DATABASE_URL must name a plain database, got "${name}"`);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

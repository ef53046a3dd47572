import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load-config';

const secrets = {
  JWT_SECRET: 'j'.repeat(32),
  SIGNING_SECRET: 's'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('loadConfig', () => {
  const dataDir = () => mkdtempSync(join(tmpdir(), 'cfg-'));

  it('applies the documented defaults', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      logLevel: 'info',
      demoData: true,
      docsEnabled: true,
      blobStorage: 'local',
      rateLimit: { perMinute: 600, ticketCreatePerMinute: 2 },
      notificationsHeartbeatMs: 15_000,
    });
    expect(config.encryptionKey).toHaveLength(32);
  });

  it('refuses a heartbeat interval that is not a whole number of at least 10 ms', () => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, NOTIFICATIONS_HEARTBEAT_MS: '5' })).toEqual([
      `NOTIFICATIONS_HEARTBEAT_MS must be a whole number from 10 to ${Number.MAX_SAFE_INTEGER} (got "5")`,
    ]);
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, NOTIFICATIONS_HEARTBEAT_MS: '250' }).notificationsHeartbeatMs).toBe(250);
  });

  it('names every missing secret in production', () => {
    expect(problems({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toEqual([
      'JWT_SECRET is required when NODE_ENV=production',
      'SIGNING_SECRET is required when NODE_ENV=production',
      'ENCRYPTION_KEY is required when NODE_ENV=production',
    ]);
    expect(loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), ...secrets }).demoData).toBe(false);
  });

  it('generates missing secrets once outside production and keeps them in DATA_DIR', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.jwtSecret).toBe(second.jwtSecret);
    expect(first.encryptionKey.equals(second.encryptionKey)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toHaveProperty('SIGNING_SECRET', first.signingSecret);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be a whole number'],
    [{ PORT: '70000' }, 'PORT must be a whole number'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ DEMO_DATA: 'maybe' }, 'DEMO_DATA must be true or false'],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, 'ENCRYPTION_KEY must be the base64 encoding of exactly 32 bytes'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters'],
    [{ BLOB_STORAGE: 's3' }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required'],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, 'RATE_LIMIT_PER_MINUTE must be a whole number'],
  ])('explains %j', (env, message) => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, ...env }).join('\n')).toContain(message);
  });
});

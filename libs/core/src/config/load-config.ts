import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppConfig } from './app-config';

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback?: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
    if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!allowed.includes(raw as T)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  }

  url(name: string, fallback?: string, protocols?: string[]): string | undefined {
    const raw = this.string(name, fallback);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (protocols && !protocols.includes(parsed.protocol)) throw new Error();
    } catch {
      this.problems.push(`${name} must be a URL${protocols ? ` (${protocols.join(' or ')})` : ''}`);
    }
    return raw;
  }
}

const SECRET_NAMES = ['JWT_SECRET', 'SIGNING_SECRET', 'ENCRYPTION_KEY'] as const;

/** Outside production, missing secrets are generated once and kept in DATA_DIR/secrets.json. */
function resolveSecrets(env: EnvReader, production: boolean, dataDir: string): Record<string, string> {
  const secrets: Record<string, string> = {};
  const missing = SECRET_NAMES.filter((name) => !env.string(name));
  if (missing.length && production) {
    for (const name of missing) env.problems.push(`${name} is required when NODE_ENV=production`);
    return secrets;
  }
  let stored: Record<string, string> = {};
  const file = join(dataDir, 'secrets.json');
  if (missing.length) {
    if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    let changed = false;
    for (const name of missing) {
      if (!stored[name]) {
        stored[name] = randomBytes(32).toString(name === 'ENCRYPTION_KEY' ? 'base64' : 'base64url');
        changed = true;
      }
    }
    if (changed) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
    }
  }
  for (const name of SECRET_NAMES) secrets[name] = env.string(name) ?? stored[name];
  return secrets;
}

export function loadConfig(source: Env = process.env): AppConfig {
  const env = new EnvReader(source);
  const nodeEnv = env.string('NODE_ENV', 'development')!;
  const production = nodeEnv === 'production';
  const port = env.int('PORT', 3000, 0, 65535);
  const dataDir = resolve(env.string('DATA_DIR', './data')!);
  const secrets = resolveSecrets(env, production, dataDir);

  const encryptionKey = Buffer.from(secrets.ENCRYPTION_KEY ?? '', 'base64');
  if (secrets.ENCRYPTION_KEY && encryptionKey.length !== 32) {
    env.problems.push('ENCRYPTION_KEY must be the base64 encoding of exactly 32 bytes');
  }
  for (const name of ['JWT_SECRET', 'SIGNING_SECRET'] as const) {
    if (secrets[name] && secrets[name].length < 32) env.problems.push(`${name} must be at least 32 characters`);
  }

  const config: AppConfig = {
    nodeEnv,
    production,
    port,
    publicUrl: (env.url('PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:']) ?? '').replace(/\/+$/, ''),
    databaseUrl: env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    dataDir,
    logLevel: env.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    demoData: env.bool('DEMO_DATA', !production),
    docsEnabled: env.bool('DOCS_ENABLED', true),
    jwtSecret: secrets.JWT_SECRET,
    signingSecret: secrets.SIGNING_SECRET,
    encryptionKey,
    redisUrl: env.url('REDIS_URL', undefined, ['redis:', 'rediss:']),
    blobStorage: env.oneOf('BLOB_STORAGE', ['local', 's3'] as const, 'local'),
    s3: {
      endpoint: env.url('S3_ENDPOINT', undefined, ['http:', 'https:']),
      region: env.string('S3_REGION', 'us-east-1')!,
      bucket: env.string('S3_BUCKET', 'ticket-attachments')!,
      accessKeyId: env.string('S3_ACCESS_KEY_ID'),
      secretAccessKey: env.string('S3_SECRET_ACCESS_KEY'),
      forcePathStyle: env.bool('S3_FORCE_PATH_STYLE', false),
    },
    rateLimit: {
      perMinute: env.int('RATE_LIMIT_PER_MINUTE', 600),
      loginPerMinute: env.int('RATE_LIMIT_LOGIN_PER_MINUTE', 10),
      registerPerHour: env.int('RATE_LIMIT_REGISTER_PER_HOUR', 20),
      ticketCreatePerMinute: env.int('RATE_LIMIT_TICKET_CREATE_PER_MINUTE', 2),
      presignPerMinute: env.int('RATE_LIMIT_PRESIGN_PER_MINUTE', 30),
      consolePerMinute: env.int('RATE_LIMIT_CONSOLE_PER_MINUTE', 10),
    },
    corsOrigins: (env.string('CORS_ORIGINS', '') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    dbPoolSize: env.int('DB_POOL_SIZE', 10, 1, 200),
    dbStatementTimeoutMs: env.int('DB_STATEMENT_TIMEOUT_MS', 5000, 0),
    computeTransitionDelayMs: env.int('COMPUTE_TRANSITION_DELAY_MS', 2000, 0),
    notificationsHeartbeatMs: env.int('NOTIFICATIONS_HEARTBEAT_MS', 15_000, 10),
    accessTokenTtlSeconds: env.int('ACCESS_TOKEN_TTL_SECONDS', 900, 30),
    refreshTokenTtlSeconds: env.int('REFRESH_TOKEN_TTL_SECONDS', 30 * 24 * 3600, 60),
  };
  if (config.blobStorage === 's3' && !config.s3.accessKeyId) {
    env.problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required when BLOB_STORAGE=s3');
  }
  if (env.problems.length) throw new ConfigError(env.problems);
  return config;
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { AppConfig } from './app-config';
import { EnvReader } from './env-reader';
import { dnsConfig } from './dns-config';
import { metricsConfig } from './metrics-config';
import { objectStorageConfig } from './object-storage-config';
import { vpsConfig } from './vps-config';

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/** `TRUST_PROXY`: unset or `false` trusts no proxy; a hop count; or addresses, CIDR ranges and Express's keywords. */
function trustProxy(env: EnvReader): false | number | string[] {
  const raw = env.string('TRUST_PROXY', 'false')!.trim();
  if (raw === 'false') return false;
  if (/^\d+$/.test(raw) && Number(raw) <= 10) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const valid = (entry: string) => {
    if (PROXY_KEYWORDS.includes(entry)) return true;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    if (!family || extra !== undefined) return false;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  const bad = entries.filter((entry) => !valid(entry));
  if (bad.length) {
    env.problems.push(
      `TRUST_PROXY must be false, a hop count (0-10) or a comma-separated list of IP addresses, CIDR ranges, ${PROXY_KEYWORDS.join(', ')} (got "${bad.join(',')}")`,
    );
    return false;
  }
  return entries;
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
    dashboardUrl: env.url('DASHBOARD_URL', undefined, ['http:', 'https:'])?.replace(/\/+$/, ''),
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
      rootPasswordPerHour: env.int('RATE_LIMIT_ROOT_PASSWORD_PER_HOUR', 5),
      rescuePerHour: env.int('RATE_LIMIT_RESCUE_PER_HOUR', 5),
      metricsPerMinute: env.int('RATE_LIMIT_METRICS_PER_MINUTE', 60),
      loginEmailFailuresPerMinute: env.int('RATE_LIMIT_LOGIN_EMAIL_FAILURES_PER_MINUTE', 50),
      authFailuresPerMinute: env.int('RATE_LIMIT_AUTH_FAILURES_PER_MINUTE', 60),
      mfaPerMinute: env.int('RATE_LIMIT_2FA_PER_MINUTE', 10),
      passwordResetPerHour: env.int('RATE_LIMIT_PASSWORD_RESET_PER_HOUR', 5),
      passwordResetIpPerMinute: env.int('RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE', 10),
      emailPerHour: env.int('RATE_LIMIT_EMAIL_PER_HOUR', 5),
      invitationsPerHour: env.int('RATE_LIMIT_INVITATIONS_PER_HOUR', 20),
    },
    corsOrigins: (env.string('CORS_ORIGINS', '') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    dbPoolSize: env.int('DB_POOL_SIZE', 10, 1, 200),
    dbStatementTimeoutMs: env.int('DB_STATEMENT_TIMEOUT_MS', 5000, 0),
    ...vpsConfig(env, dataDir),
    objectStorage: objectStorageConfig(env),
    metrics: metricsConfig(env),
    dns: dnsConfig(env),
    teams: {
      membersPerAccount: env.int('MEMBERS_PER_ACCOUNT', 50, 1, 1000),
      invitationTtlHours: env.int('INVITATION_TTL_HOURS', 72, 1, 720),
    },
    notificationsHeartbeatMs: env.int('NOTIFICATIONS_HEARTBEAT_MS', 15_000, 10),
    notificationStreams: {
      perAccount: env.int('NOTIFICATIONS_MAX_STREAMS_PER_ACCOUNT', 5, 1, 1000),
      perIp: env.int('NOTIFICATIONS_MAX_STREAMS_PER_IP', 20, 1, 100_000),
      maxSeconds: env.int('NOTIFICATIONS_STREAM_MAX_SECONDS', 3600, 1, 86_400),
    },
    trustProxy: trustProxy(env),
    httpKeepAliveTimeoutMs: env.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 75_000, 1000, 3_600_000),
    httpHeadersTimeoutMs: env.int('HTTP_HEADERS_TIMEOUT_MS', 76_000, 1000, 3_600_000),
    metricsPort: env.string('METRICS_PORT') === undefined ? undefined : env.int('METRICS_PORT', 0, 0, 65535),
    passwordHashCost: env.int('PASSWORD_HASH_COST', 15, production ? 15 : 10, 17),
    accessTokenTtlSeconds: env.int('ACCESS_TOKEN_TTL_SECONDS', 900, 30),
    refreshTokenTtlSeconds: env.int('REFRESH_TOKEN_TTL_SECONDS', 30 * 24 * 3600, 60),
    mail: {
      smtpUrl: env.url('SMTP_URL', undefined, ['smtp:', 'smtps:']),
      from: env.string('MAIL_FROM', 'Hosting Account <no-reply@localhost>')!,
      retryDelaySeconds: env.int('MAIL_RETRY_DELAY_SECONDS', 30, 1, 86_400),
    },
    jobs: { pollIntervalMs: env.int('JOBS_POLL_INTERVAL_MS', 2000, 500, 60_000) },
    eventsRetentionDays: env.int('EVENTS_RETENTION_DAYS', 90, 1, 3650),
    webhooks: {
      allowHttp: env.bool('WEBHOOKS_ALLOW_HTTP', false),
      allowPrivate: env.bool('WEBHOOKS_ALLOW_PRIVATE', false),
      retryBaseSeconds: env.int('WEBHOOKS_RETRY_BASE_SECONDS', 30, 1, 3600),
      retryWindowSeconds: env.int('WEBHOOKS_RETRY_WINDOW_SECONDS', 86_400, 1, 7 * 86_400),
      disableAfterSeconds: env.int('WEBHOOKS_DISABLE_AFTER_SECONDS', 3 * 86_400, 1, 30 * 86_400),
      timeoutSeconds: env.int('WEBHOOKS_TIMEOUT_SECONDS', 10, 1, 15),
      concurrency: env.int('WEBHOOKS_CONCURRENCY', 32, 1, 64),
    },
  };
  if (!/^[^<>@\s]+@[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+>$/.test(config.mail.from)) {
    env.problems.push('MAIL_FROM must be an address, e.g. "Hosting <no-reply@example.com>"');
  }
  if (config.dashboardUrl && /[?#]/.test(config.dashboardUrl)) {
    env.problems.push(
      'DASHBOARD_URL must be the base address of the dashboard, without a query or fragment (the links add /reset-password?token=...)',
    );
  }
  if (config.blobStorage === 's3' && !config.s3.accessKeyId) {
    env.problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required when BLOB_STORAGE=s3');
  }
  if (config.httpHeadersTimeoutMs <= config.httpKeepAliveTimeoutMs) {
    env.problems.push('HTTP_HEADERS_TIMEOUT_MS must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS');
  }
  if (config.metricsPort !== undefined && config.metricsPort !== 0 && config.metricsPort === port) {
    env.problems.push('METRICS_PORT must differ from PORT: metrics stay off the public port');
  }
  if (env.problems.length) throw new ConfigError(env.problems);
  return config;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig', () => {
  afterEach(removeDataDirs);

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
      passwordHashCost: 15,
    });
    expect(config.encryptionKey).toHaveLength(32);
  });

  it('takes DASHBOARD_URL as an http(s) base address without a trailing slash, and refuses anything else', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).dashboardUrl).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'https://my.hosting.example/app/' }).dashboardUrl).toBe(
      'https://my.hosting.example/app',
    );
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'javascript:alert(1)' })).toEqual([
      'DASHBOARD_URL must be a URL (http: or https:)',
    ]);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'my.hosting.example' })).toEqual([
      'DASHBOARD_URL must be a URL (http: or https:)',
    ]);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'https://my.hosting.example/?a=1' })).toEqual([
      'DASHBOARD_URL must be the base address of the dashboard, without a query or fragment (the links add /reset-password?token=...)',
    ]);
  });

  it('refuses a heartbeat interval that is not a whole number of at least 10 ms', () => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, NOTIFICATIONS_HEARTBEAT_MS: '5' })).toEqual([
      `NOTIFICATIONS_HEARTBEAT_MS must be a whole number from 10 to ${Number.MAX_SAFE_INTEGER} (got "5")`,
    ]);
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, NOTIFICATIONS_HEARTBEAT_MS: '250' }).notificationsHeartbeatMs).toBe(250);
  });

  it('limits consoles to 5 per account and 4 hours by default, and refuses limits below 1', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets })).toMatchObject({ consoleMaxPerAccount: 5, consoleMaxSeconds: 14_400 });
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, CONSOLE_MAX_PER_ACCOUNT: '2', CONSOLE_MAX_SECONDS: '60' })).toMatchObject({
      consoleMaxPerAccount: 2,
      consoleMaxSeconds: 60,
    });
    expect(problems({ DATA_DIR: dataDir(), ...secrets, CONSOLE_MAX_PER_ACCOUNT: '0', CONSOLE_MAX_SECONDS: '-1' })).toEqual([
      'CONSOLE_MAX_PER_ACCOUNT must be a whole number from 1 to 1000 (got "0")',
      'CONSOLE_MAX_SECONDS must be a whole number from 1 to 604800 (got "-1")',
    ]);
  });

  it('keeps activity entries 90 days by default, and refuses a retention outside 1..3650 days', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).eventsRetentionDays).toBe(90);
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, EVENTS_RETENTION_DAYS: '7' }).eventsRetentionDays).toBe(7);
    for (const bad of ['0', '3651', '1.5', 'forever']) {
      expect(problems({ DATA_DIR: dataDir(), ...secrets, EVENTS_RETENTION_DAYS: bad })).toEqual([
        `EVENTS_RETENTION_DAYS must be a whole number from 1 to 3650 (got "${bad}")`,
      ]);
    }
  });

  it('names every missing secret in production', () => {
    expect(problems({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toEqual([
      'JWT_SECRET is required when NODE_ENV=production',
      'SIGNING_SECRET is required when NODE_ENV=production',
      'ENCRYPTION_KEY is required when NODE_ENV=production',
    ]);
    expect(loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), ...secrets }).demoData).toBe(false);
  });

  it('takes a cheaper password hash outside production only', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), PASSWORD_HASH_COST: '10' }).passwordHashCost).toBe(10);
    expect(problems({ NODE_ENV: 'production', DATA_DIR: dataDir(), ...secrets, PASSWORD_HASH_COST: '10' })).toEqual([
      'PASSWORD_HASH_COST must be a whole number from 15 to 17 (got "10")',
    ]);
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
    [{ RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE: '1e3' }, 'RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE must be a whole number'],
  ])('explains %j', (env, message) => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, ...env }).join('\n')).toContain(message);
  });

  it('trusts no proxy, keeps connections 75 s and serves no metrics by default (issue 17)', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config).toMatchObject({
      trustProxy: false,
      httpKeepAliveTimeoutMs: 75_000,
      httpHeadersTimeoutMs: 76_000,
      metricsPort: undefined,
    });
    expect(config.notificationStreams).toEqual({ perAccount: 5, perIp: 20, maxSeconds: 3600 });
  });

  it('reads TRUST_PROXY as a hop count or a list of addresses, and refuses anything else', () => {
    const read = (value: string) => loadConfig({ DATA_DIR: dataDir(), ...secrets, TRUST_PROXY: value }).trustProxy;
    expect(read('1')).toBe(1);
    expect(read('10.0.0.1, 172.16.0.0/12,loopback,::1')).toEqual(['10.0.0.1', '172.16.0.0/12', 'loopback', '::1']);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, TRUST_PROXY: 'everyone' })[0]).toMatch(/^TRUST_PROXY/);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, TRUST_PROXY: '10.0.0.0/33' })[0]).toMatch(/^TRUST_PROXY/);
  });

  it('refuses headers timeouts not above the keep-alive timeout, and metrics on the API port', () => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, HTTP_KEEP_ALIVE_TIMEOUT_MS: '80000' })).toEqual([
      'HTTP_HEADERS_TIMEOUT_MS must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS',
    ]);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, PORT: '3000', METRICS_PORT: '3000' })).toEqual([
      'METRICS_PORT must differ from PORT: metrics stay off the public port',
    ]);
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, METRICS_PORT: '9100' }).metricsPort).toBe(9100);
  });

  it('validates the mail and job settings', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config.mail).toEqual({ smtpUrl: undefined, from: 'Hosting Account <no-reply@localhost>', retryDelaySeconds: 30 });
    expect(config.jobs.pollIntervalMs).toBe(2000);
    expect(config.rateLimit).toMatchObject({ mfaPerMinute: 10, passwordResetPerHour: 5, passwordResetIpPerMinute: 10, emailPerHour: 5 });
    expect(
      loadConfig({ DATA_DIR: dataDir(), ...secrets, SMTP_URL: 'smtps://u:p@mail.example.com:465', MAIL_FROM: 'ops@example.com' }).mail,
    ).toMatchObject({
      smtpUrl: 'smtps://u:p@mail.example.com:465',
      from: 'ops@example.com',
    });
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      SMTP_URL: 'http://mail.example.com',
      MAIL_FROM: 'nobody',
      JOBS_POLL_INTERVAL_MS: '10',
      MAIL_RETRY_DELAY_SECONDS: '0',
    });
    expect(found).toEqual([
      'SMTP_URL must be a URL (smtp: or smtps:)',
      'MAIL_RETRY_DELAY_SECONDS must be a whole number from 1 to 86400 (got "0")',
      'JOBS_POLL_INTERVAL_MS must be a whole number from 500 to 60000 (got "10")',
      'MAIL_FROM must be an address, e.g. "Hosting <no-reply@example.com>"',
    ]);
  });

  it('defaults webhooks to https, public addresses only, 10 s an attempt, 32 endpoints at once, 24 h of retries and disabling after 3 days', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).webhooks).toEqual({
      allowHttp: false,
      allowPrivate: false,
      retryBaseSeconds: 30,
      retryWindowSeconds: 86_400,
      disableAfterSeconds: 259_200,
      timeoutSeconds: 10,
      concurrency: 32,
    });
    expect(
      problems({
        DATA_DIR: dataDir(),
        ...secrets,
        WEBHOOKS_ALLOW_PRIVATE: 'maybe',
        WEBHOOKS_RETRY_BASE_SECONDS: '0',
        WEBHOOKS_TIMEOUT_SECONDS: '30',
        WEBHOOKS_CONCURRENCY: '100',
      }),
    ).toEqual([
      'WEBHOOKS_ALLOW_PRIVATE must be true or false (got "maybe")',
      'WEBHOOKS_RETRY_BASE_SECONDS must be a whole number from 1 to 3600 (got "0")',
      'WEBHOOKS_TIMEOUT_SECONDS must be a whole number from 1 to 15 (got "30")',
      'WEBHOOKS_CONCURRENCY must be a whole number from 1 to 64 (got "100")',
    ]);
  });
});

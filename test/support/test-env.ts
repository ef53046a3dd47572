/** The database the run was given (PostgreSQL), or undefined for the embedded PGlite. */
export const RUN_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/**
 * A Jest worker's own database: the run's database for worker 1 (and with --runInBand), `<name>_w<k>`
 * for worker k; the global setup clones each from the run's migrated template.
 */
export function workerDatabaseUrl(url: string, worker: number): string {
  if (worker <= 1) return url;
  const u = new URL(url);
  u.pathname = `${u.pathname}_w${worker}`;
  return u.toString();
}

/** The database this test process uses (see workerDatabaseUrl); undefined on PGlite. */
export const TEST_DATABASE_URL = RUN_DATABASE_URL && workerDatabaseUrl(RUN_DATABASE_URL, Number(process.env.JEST_WORKER_ID ?? 1));

/** The configuration every e2e app starts with: fixed secrets, generous limits, no delays, cheap password hashes. */

export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    PORT: '0',
    PUBLIC_URL: 'http://127.0.0.1:3000',
    DATABASE_URL: TEST_DATABASE_URL,
    LOG_LEVEL: 'silent',
    DEMO_DATA: 'false',
    JWT_SECRET: 'test-jwt-secret-0123456789abcdefghijklmnopqrstuvwxyz',
    SIGNING_SECRET: 'test-signing-secret-0123456789abcdefghijklmnopqrstuv',
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
    RATE_LIMIT_REGISTER_PER_HOUR: '100000',
    RATE_LIMIT_TICKET_CREATE_PER_MINUTE: '100000',
    RATE_LIMIT_PRESIGN_PER_MINUTE: '100000',
    RATE_LIMIT_CONSOLE_PER_MINUTE: '100000',
    RATE_LIMIT_ROOT_PASSWORD_PER_HOUR: '100000',
    RATE_LIMIT_RESCUE_PER_HOUR: '100000',
    RATE_LIMIT_METRICS_PER_MINUTE: '100000',
    RATE_LIMIT_LOGIN_EMAIL_FAILURES_PER_MINUTE: '100000',
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '100000',
    RATE_LIMIT_2FA_PER_MINUTE: '100000',
    RATE_LIMIT_PASSWORD_RESET_PER_HOUR: '100000',
    RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE: '100000',
    RATE_LIMIT_EMAIL_PER_HOUR: '100000',
    JOBS_POLL_INTERVAL_MS: '500',
    MAIL_RETRY_DELAY_SECONDS: '1',
    COMPUTE_TRANSITION_DELAY_MS: '0',
    DB_POOL_SIZE: '5',
    PASSWORD_HASH_COST: '10',
    ...overrides,
  };
}

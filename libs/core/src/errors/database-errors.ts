const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '57014', // query_canceled (statement timeout)
  '53300', // too_many_connections
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

/** pg-pool's error when no connection was free within connectionTimeoutMillis. */
export const CONNECTION_WAIT_RAN_OUT = 'timeout exceeded when trying to connect';

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  CONNECTION_WAIT_RAN_OUT,
  'connect ECONNREFUSED',
  'Client has encountered a connection error',
  'Connection terminated unexpectedly',
  'read ECONNRESET',
  'the database system is',
];

/**
 * TypeORM releases a query runner by itself when its connection fails (a PostgreSQL restart
 * terminating it mid-transaction); the transaction's next statement then throws one of these.
 */
const RUNNER_RELEASED_ERRORS = new Set(['QueryRunnerProviderAlreadyReleasedError', 'QueryRunnerAlreadyReleasedError']);

/** True for errors that mean "the database cannot serve now" rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const err = error as { code?: string; message?: string; name?: string; driverError?: unknown };
  if (err.name && RUNNER_RELEASED_ERRORS.has(err.name)) return true;
  if (err.code && (UNAVAILABLE_SQLSTATES.has(err.code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(err.code))) {
    return true;
  }
  if (err.message && UNAVAILABLE_MESSAGES.some((text) => err.message!.includes(text))) return true;
  return err.driverError ? isDatabaseUnavailable(err.driverError) : false;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const err = error as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = err?.code ?? err?.driverError?.code;
  const name = err?.constraint ?? err?.driverError?.constraint;
  return code === '23505' && (!constraint || name === constraint);
}

/** SQLSTATEs caused by a value the client sent that validation let through: a 400, not a 500. */
const INPUT_SQLSTATES = new Set(['22001', '22003', '22007', '22008', '22021', '22P02', '22P05', '54000']);

export function isInvalidInputFromDatabase(error: unknown): boolean {
  const err = error as { code?: string; driverError?: { code?: string } };
  const code = err?.driverError?.code ?? err?.code;
  return typeof code === 'string' && INPUT_SQLSTATES.has(code);
}

/** A lock wait that gave up: `lock_timeout` ran out (55P03) or PostgreSQL broke a deadlock (40P01). */
export function isLockConflict(error: unknown): boolean {
  const err = error as { code?: string; driverError?: { code?: string } };
  const code = err?.driverError?.code ?? err?.code;
  return code === '55P03' || code === '40P01';
}

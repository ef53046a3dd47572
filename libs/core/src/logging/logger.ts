import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/** Paths never written to logs, wherever they appear. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.refreshToken',
  '*.accessToken',
  '*.key',
  '*.secretAccessKey',
  '*.token',
];

/** Readable lines for a developer at a terminal; JSON lines for everything that collects logs. */
export function prettyLogs(nodeEnv: string, destination: 1 | 2 = 1): boolean {
  const stream = destination === 1 ? process.stdout : process.stderr;
  return Boolean(stream.isTTY) && nodeEnv !== 'production';
}

/** Async because the pretty printer loads only where it prints: production's JSON lines never load it. */
export async function createRootLogger(level: string, destination: 1 | 2 = 1, pretty = false): Promise<Logger> {
  const options = {
    level,
    base: { service: 'hosting-account-api' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Redaction happens before the stream: the pretty printer never sees a secret either. Written
  // synchronously, so that what main() prints itself (the demo credentials) lands in order.
  if (pretty) {
    const { default: pinoPretty } = await import('pino-pretty');
    return pino(
      options,
      pinoPretty({
        destination,
        sync: true,
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service,context',
        messageFormat: '{if context}[{context}] {end}{msg}',
      }),
    );
  }
  return pino(options, pino.destination({ fd: destination, sync: destination === 2 }));
}

/** Nest's start-up report, a line per module and per route (about 100): debug, not info. */
const NEST_START_UP = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Nest's logger interface on top of pino, so framework and app logs are the same JSON lines. */
export class PinoNestLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  log(message: unknown, context?: string): void {
    this.pino[context && NEST_START_UP.has(context) ? 'debug' : 'info']({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.pino.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.pino.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.pino.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.pino.trace({ context }, String(message));
  }
  fatal(message: unknown, context?: string): void {
    this.pino.fatal({ context }, String(message));
  }
}

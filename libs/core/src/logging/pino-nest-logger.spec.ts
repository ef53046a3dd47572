import { Writable } from 'node:stream';
import pino from 'pino';
import { PinoNestLogger } from './logger';

describe('PinoNestLogger', () => {
  function logged(level: string, write: (logger: PinoNestLogger) => void): { level: number; context?: string; msg: string }[] {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    write(new PinoNestLogger(pino({ level }, sink)));
    return lines.map((line) => JSON.parse(line));
  }

  const startUp = (logger: PinoNestLogger) => {
    logger.log('Starting Nest application...', 'NestFactory');
    logger.log('ServicesModule dependencies initialized', 'InstanceLoader');
    logger.log('ServicesController {/api/services}:', 'RoutesResolver');
    logger.log('Mapped {/api/services, GET} route', 'RouterExplorer');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.log('Applied migrations: CreateAccounts', 'Database');
  };

  it("keeps Nest's module and route report (about 100 lines at start) at debug, and the app's own lines at info", () => {
    expect(logged('info', startUp).map((l) => [l.level, l.context, l.msg])).toEqual([
      [30, 'Database', 'Applied migrations: CreateAccounts'],
    ]);
    const all = logged('debug', startUp);
    expect(all.map((l) => [l.level, l.context])).toEqual([
      [20, 'NestFactory'],
      [20, 'InstanceLoader'],
      [20, 'RoutesResolver'],
      [20, 'RouterExplorer'],
      [20, 'NestApplication'],
      [30, 'Database'],
    ]);
  });

  it('leaves warnings and errors of those contexts at their level', () => {
    const lines = logged('info', (logger) => {
      logger.warn('slow start', 'NestApplication');
      logger.error('failed', undefined, 'InstanceLoader');
    });
    expect(lines.map((l) => l.level)).toEqual([40, 50]);
  });
});

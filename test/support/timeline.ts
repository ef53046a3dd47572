import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * With TEST_TIMELINE set to a file, the real-guest suites append a line there for each step an
 * action reports and each wait for SSH, with the time it took: where a slow run's minutes went.
 */
export function timeline(what: string, sinceMs: number): void {
  const file = process.env.TEST_TIMELINE;
  if (!file) return;
  const suite = basename((typeof expect === 'function' && expect.getState().testPath) || process.argv[1]).replace(/\.e2e-spec\.ts$/, '');
  const took = ((Date.now() - sinceMs) / 1000).toFixed(1);
  appendFileSync(file, `${new Date().toISOString()} ${suite} +${took}s ${what}\n`);
}

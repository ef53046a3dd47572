import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBLEM_CODES } from './problem-codes';

/** README's table of error codes is what a dashboard author reads: it must name every code, with its statuses. */
describe('README error code table', () => {
  const readme = readFileSync(join(__dirname, '../../../../README.md'), 'utf8');
  const rows = new Map(
    [...readme.matchAll(/^\| `([a-z_]+)` +\| ([\d, ]+?) *\|/gm)].map(([, code, statuses]) => [code, statuses.split(/,\s*/).map(Number)]),
  );

  it.each(Object.entries(PROBLEM_CODES))('lists %s with its statuses', (code, info) => {
    expect(rows.get(code)).toEqual(info.statuses);
  });

  it('lists no code the API does not have', () => {
    expect([...rows.keys()].filter((code) => !(code in PROBLEM_CODES))).toEqual([]);
  });
});

#!/usr/bin/env node
'use strict';
// The same build on two Node versions, side by side: bench/run.js once per version (each run
// against its own baseline on the same Node), then one table of both.
//
//   npm run bench:node                      Node 20 (/usr/bin/node) against Node 24 (the dev dependency)
//   npm run bench:node -- --old=<node> --new=<node> [any bench/run.js option, e.g. --smoke --only=list-10-key]
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const args = process.argv.slice(2);
const take = (name, fallback) => {
  const i = args.findIndex((a) => a.startsWith(`--${name}=`));
  if (i < 0) return fallback;
  const [value] = args.splice(i, 1);
  return value.slice(name.length + 3);
};
const versions = [
  { label: 'old', binary: take('old', '/usr/bin/node') },
  { label: 'new', binary: take('new', path.join(ROOT, 'node_modules/node/bin/node')) },
];

const results = [];
for (const v of versions) {
  if (!fs.existsSync(v.binary)) throw new Error(`${v.binary} is missing (--${v.label}=<node binary>)`);
  v.version = execFileSync(v.binary, ['--version'], { encoding: 'utf8' }).trim();
  const out = path.join(ROOT, `bench/results/node-${v.version}.json`);
  process.stdout.write(`\n=== ${v.version} (${v.binary}) ===\n`);
  const run = spawnSync(process.execPath, [path.join(__dirname, 'run.js'), `--node=${v.binary}`, `--out=${out}`, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exitCode = 1;
  if (fs.existsSync(out)) results.push({ ...v, report: JSON.parse(fs.readFileSync(out, 'utf8')) });
}
if (results.length < 2) process.exit(1);

const [a, b] = results;
const byId = (report) => Object.fromEntries((report.scenarios ?? []).map((s) => [s.id, s]));
const [sa, sb] = [byId(a.report), byId(b.report)];
const fmt = (n, d = 0) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(d) : '-');
const col = (s, n) => String(s).padStart(n);
process.stdout.write(`\nSame build, ${a.version} against ${b.version} (API rps, p99 ms, API/baseline ratio on each)\n`);
process.stdout.write(
  `${'scenario'.padEnd(16)}${col(`${a.version} rps`, 14)}${col(`${b.version} rps`, 14)}${col('new/old', 9)}` +
    `${col('old p99', 9)}${col('new p99', 9)}${col('old ratio', 11)}${col('new ratio', 11)}\n`,
);
for (const id of Object.keys(sa)) {
  const [x, y] = [sa[id], sb[id]];
  if (!y) continue;
  process.stdout.write(
    `${id.padEnd(16)}${col(fmt(x.api.rps), 14)}${col(fmt(y.api.rps), 14)}${col(fmt(y.api.rps / x.api.rps, 2), 9)}` +
      `${col(fmt(x.api.p99), 9)}${col(fmt(y.api.p99), 9)}${col(fmt(x.ratio, 2), 11)}${col(fmt(y.ratio, 2), 11)}\n`,
  );
}

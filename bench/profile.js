'use strict';
// `npm run bench -- --profile <scenario>`: the API runs under --cpu-prof while the scenario loads it;
// this turns the profile into the frames and packages that took the most CPU by self time.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

/** Where a frame's code lives: a package, one of our areas, Node's internals, or the engine. */
function owner(url) {
  if (!url) return '(engine)';
  if (url.startsWith('node:')) return 'node:internal';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const area = /dist\/apps\/api\/(libs\/[^/]+|apps\/[^/]+)/.exec(url);
  if (area) return area[1];
  return path.relative(ROOT, url.replace(/^file:\/\//, ''));
}

/** Self time (ms) per frame and per owner, from a V8 .cpuprofile. */
function summariseProfile(profile, top = 40) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const frames = new Map();
  const owners = new Map();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    const where = callFrame.url ? `${owner(callFrame.url)}:${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : '';
    const key = `${name} ${where}`.trim();
    frames.set(key, (frames.get(key) ?? 0) + us);
    const who = ['(idle)', '(program)', '(garbage collector)'].includes(name) ? name : owner(callFrame.url);
    owners.set(who, (owners.get(who) ?? 0) + us);
    totalUs += us;
  }
  const rank = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, share: Math.round((us / totalUs) * 1000) / 10 }));
  return { totalMs: Math.round(totalUs / 1000), frames: rank(frames), owners: rank(owners) };
}

function formatSummary(scenario, summary) {
  const lines = [`CPU profile of the API under ${scenario}: ${summary.totalMs} ms sampled (self time)`, '', 'By package or area:'];
  for (const o of summary.owners.slice(0, 25)) lines.push(`  ${String(o.share).padStart(5)}%  ${String(o.ms).padStart(8)} ms  ${o.name}`);
  lines.push('', 'Top frames:');
  for (const f of summary.frames) lines.push(`  ${String(f.share).padStart(5)}%  ${String(f.ms).padStart(8)} ms  ${f.name}`);
  return `${lines.join('\n')}\n`;
}

/** Reads the profile the API wrote on exit into `dir`, writes it and its summary to bench/results/. */
function writeProfileReport(dir, scenario) {
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`The API wrote no CPU profile into ${dir}`);
  const raw = fs.readFileSync(path.join(dir, file), 'utf8');
  const summary = summariseProfile(JSON.parse(raw));
  const out = path.join(ROOT, 'bench/results', `profile-${scenario}`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(`${out}.cpuprofile`, raw);
  fs.writeFileSync(`${out}.txt`, formatSummary(scenario, summary));
  fs.writeFileSync(`${out}.json`, `${JSON.stringify(summary, null, 2)}\n`);
  return { summary, files: [`${out}.txt`, `${out}.json`, `${out}.cpuprofile`].map((f) => path.relative(ROOT, f)) };
}

module.exports = { summariseProfile, formatSummary, writeProfileReport };

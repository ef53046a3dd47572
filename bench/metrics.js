'use strict';
// The metrics scenario: GET /api/services/{id}/instance/metrics (API key, the last hour,
// cpu, disk and network at a 10 s step) against a direct query_range with the same PromQL to the
// same Prometheus, in alternation. Prometheus (Debian's, a folder of its own, loopback) holds an
// hour of one VPS's libvirt-exporter series backfilled with promtool at a 15 s interval; the API
// process is one of its own with METRICS_PROMETHEUS_URL. Without Prometheus installed the scenario
// is skipped, with a line saying so. Prometheus runs on a core of its own, as it would on its own host
// (issue 59): `taskset` puts it on the last CPU and the API and this process (autocannon) on the others,
// for both sides alike; `--metrics-cores=shared` leaves every process on every CPU (the earlier figures).
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { withClient } = require('./pg-client');

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';
const MIN_RATIO = 0.8;
const TASKSET = '/usr/bin/taskset';

/** CPUs for Prometheus and for the rest, or null when they share (one CPU, no taskset, or asked to). */
function coreSplit(cores) {
  const cpus = os.availableParallelism();
  if (cores === 'shared' || cpus < 2 || !fs.existsSync(TASKSET)) return null;
  return { prometheus: String(cpus - 1), rest: cpus === 2 ? '0' : `0-${cpus - 2}` };
}

/** Every thread of a running process onto these CPUs (threads it makes later inherit them). */
function pin(pid, cpus) {
  execFileSync(TASKSET, ['--all-tasks', '--cpu-list', '--pid', cpus, String(pid)], { stdio: 'ignore' });
}

/** An hour of what prometheus-libvirt-exporter 0.2.0 exposes for one domain (one disk, no NIC), as OpenMetrics. */
function backfill(domain, now) {
  const counters = [
    ['libvirt_domain_info_cpu_time_seconds_total', '', 0.35],
    ['libvirt_domain_block_stats_read_requests_total', ',target_device="vda"', 12],
    ['libvirt_domain_block_stats_write_requests_total', ',target_device="vda"', 4],
    ['libvirt_domain_block_stats_read_bytes_total', ',target_device="vda"', 12 * 16384],
    ['libvirt_domain_block_stats_write_bytes_total', ',target_device="vda"', 4 * 8192],
  ];
  const lines = [];
  const times = [];
  for (let t = now - 3600; t <= now - 30; t += 15) times.push(t);
  for (const [name, labels, perSecond] of counters) {
    lines.push(`# TYPE ${name} counter`);
    for (const t of times)
      lines.push(`${name}{domain="${domain}"${labels}} ${((t - now + 3600) * perSecond * (0.8 + 0.4 * Math.random())).toFixed(2)} ${t}`);
  }
  lines.push('# TYPE libvirt_domain_info_virtual_cpus gauge');
  for (const t of times) lines.push(`libvirt_domain_info_virtual_cpus{domain="${domain}"} 2 ${t}`);
  return `${lines.join('\n')}\n# EOF\n`;
}

async function startPrometheus(dir, port, log, cpus) {
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\nscrape_configs: []\n');
  const args = [
    `--config.file=${path.join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
  ];
  // Started through taskset (it execs Prometheus: same pid), so Go sizes GOMAXPROCS to its own core.
  const child = cpus
    ? spawn(TASKSET, ['--cpu-list', cpus, PROMETHEUS, ...args], { cwd: dir, stdio: 'ignore' })
    : spawn(PROMETHEUS, args, { cwd: dir, stdio: 'ignore' });
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}`);
    if ((await fetch(`http://127.0.0.1:${port}/-/ready`).catch(() => undefined))?.ok) break;
    if (Date.now() > until) throw new Error('prometheus not ready after 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  log(`  prometheus on 127.0.0.1:${port}`);
  return child;
}

function measure(port, target, { connections, duration }) {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: `http://127.0.0.1:${port}${target.path}`,
        method: target.method,
        headers: target.headers,
        body: target.body,
        connections,
        duration,
        timeout: 10,
      },
      (err, result) =>
        err
          ? reject(err)
          : resolve({
              rps: Math.round(result.requests.average * 10) / 10,
              p50: result.latency.p50,
              p99: result.latency.p99,
              failed: result.non2xx + result.errors + result.timeouts,
            }),
    ),
  );
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function metricsScenario({
  apiMain,
  apiEnv,
  freePort,
  startProcess,
  stopProcess,
  waitReady,
  cpuMs,
  dbUrl,
  accountId,
  apiKey,
  duration,
  warmup,
  rounds,
  connections,
  cores = 'split',
  log,
}) {
  if (!fs.existsSync(PROMETHEUS) || !fs.existsSync(PROMTOOL)) {
    log(`metrics: skipped (${PROMETHEUS} or ${PROMTOOL} missing: apt-get install prometheus prometheus-libvirt-exporter)`);
    return null;
  }
  log('metrics: the route against a direct query_range to the same Prometheus');
  const vpsId = await withClient(dbUrl, async (c) => {
    const { rows } = await c.query(
      'SELECT s.id FROM services s JOIN vps_instances v ON v.service_id = s.id WHERE s.account_id = $1 ORDER BY s.id LIMIT 1',
      [accountId],
    );
    return rows[0]?.id;
  });
  if (!vpsId) throw new Error('metrics: the bench account has no VPS');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prometheus-'));
  // On a step boundary: the route aligns start and end to the step, so the direct query asks the same instants.
  const now = Math.floor(Date.now() / 10_000) * 10;
  fs.writeFileSync(path.join(dir, 'backfill.om'), backfill(`svc-${vpsId}`, now));
  execFileSync(PROMTOOL, ['tsdb', 'create-blocks-from', 'openmetrics', path.join(dir, 'backfill.om'), path.join(dir, 'data')], {
    stdio: 'ignore',
  });
  const promPort = await freePort();
  const split = coreSplit(cores);
  const prometheus = await startPrometheus(dir, promPort, log, split?.prometheus);
  const apiPort = await freePort();
  // The route's own cost on every request: no budget, and no cache answering the same range for the next 5 s.
  const api = startProcess('api (metrics)', apiMain, {
    ...apiEnv(apiPort),
    METRICS_PROMETHEUS_URL: `http://127.0.0.1:${promPort}`,
    RATE_LIMIT_METRICS_PER_MINUTE: '0',
    METRICS_CACHE_SECONDS: '0',
  });
  try {
    await waitReady(api, apiPort, '/health/ready');
    if (split) {
      pin(api.child.pid, split.rest);
      pin(process.pid, split.rest);
      log(`  Prometheus on CPU ${split.prometheus}, the API and the load generator on CPU ${split.rest}`);
    }
    const { metricsQuery } = require(path.resolve(path.dirname(apiMain), '../../../libs/metrics/src/source/promql.js'));
    const [start, end, step] = [now - 3600, now - 60, 10];
    const iso = (s) => new Date(s * 1000).toISOString();
    const targets = {
      api: {
        port: apiPort,
        path: `/api/services/${vpsId}/instance/metrics?type=cpu,disk,network&start=${iso(start)}&end=${iso(end)}&step=${step}`,
        method: 'GET',
        headers: { authorization: `Bearer ${apiKey}` },
      },
      direct: {
        port: promPort,
        path: '/api/v1/query_range',
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          query: metricsQuery(vpsId, ['cpu', 'disk', 'network'], step),
          start: String(start),
          end: String(end),
          step: String(step),
        }).toString(),
      },
    };
    const viaApi = await (await fetch(`http://127.0.0.1:${apiPort}${targets.api.path}`, { headers: targets.api.headers })).json();
    const direct = await (
      await fetch(`http://127.0.0.1:${promPort}/api/v1/query_range`, {
        method: 'POST',
        headers: targets.direct.headers,
        body: targets.direct.body,
      })
    ).json();
    const points = Object.values(viaApi.series ?? {}).reduce((n, s) => n + s.length, 0);
    const directPoints = (direct.data?.result ?? []).reduce((n, s) => n + s.values.length, 0);
    if (!points || points !== directPoints)
      throw new Error(`metrics: the route gave ${points} points, Prometheus ${directPoints}: ${JSON.stringify(viaApi).slice(0, 500)}`);
    log(`  same ${points} points from both (${Object.keys(viaApi.series).length} series)`);
    const runs = { api: [], direct: [] };
    for (const side of ['api', 'direct']) await measure(targets[side].port, targets[side], { connections, duration: warmup });
    for (let i = 1; i <= rounds; i++) {
      for (const side of ['api', 'direct']) {
        const cpu = [cpuMs(api.child.pid), cpuMs(prometheus.pid)];
        const result = await measure(targets[side].port, targets[side], { connections, duration });
        const requests = Math.max(1, result.rps * duration);
        result.apiCpuMsPerRequest = Math.round(((cpuMs(api.child.pid) - cpu[0]) / requests) * 100) / 100;
        result.prometheusCpuMsPerRequest = Math.round(((cpuMs(prometheus.pid) - cpu[1]) / requests) * 100) / 100;
        runs[side].push(result);
        log(
          `  metrics         round ${i}  ${side.padEnd(8)} ${String(result.rps).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  cpu: API ${result.apiCpuMsPerRequest} ms/req, Prometheus ${result.prometheusCpuMsPerRequest} ms/req${result.failed ? `  failed ${result.failed}` : ''}`,
        );
      }
    }
    const agg = (rs) => ({
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      apiCpuMsPerRequest: median(rs.map((r) => r.apiCpuMsPerRequest)),
      prometheusCpuMsPerRequest: median(rs.map((r) => r.prometheusCpuMsPerRequest)),
    });
    const row = {
      points,
      cores: split ?? 'shared',
      minRatio: MIN_RATIO,
      api: agg(runs.api),
      direct: agg(runs.direct),
      failed: [...runs.api, ...runs.direct].reduce((n, r) => n + r.failed, 0),
    };
    row.ratio = Math.round((row.api.rps / row.direct.rps) * 100) / 100;
    return row;
  } finally {
    if (split) pin(process.pid, `0-${os.availableParallelism() - 1}`);
    await stopProcess(api);
    prometheus.kill('SIGTERM');
    await new Promise((resolve) => (prometheus.exitCode !== null ? resolve() : prometheus.once('exit', resolve)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { metricsScenario };

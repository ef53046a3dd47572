#!/usr/bin/env node
'use strict';
// Choosing a VPS's host at a provider's size. One PostgreSQL database holds a
// region of 10 hosts and a region of --hosts hosts (default 10,000), their usage as if 100 VPSes of
// mixed sizes were placed on each (1,000,000 for 10,000 hosts: placement reads the hosts' counters,
// never the VPS rows, so those are not seeded). Each sample is the API's own HostPlacement.place()
// (dist/, so `npm run build` first) in a transaction that is rolled back, alternating the regions
// in rounds; prints p50/p99 of each and their ratio, for spread and pack.
//
//   node bench/placement.js [--hosts=10000] [--samples=2000] [--db=bench_placement]
//                           [--admin-url=postgres://postgres@127.0.0.1:5432/postgres] [--out=<file>]
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DataSource } = require('typeorm');
const { withClient } = require('./pg-client');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist/apps/api');
const { HostPlacement } = require(path.join(DIST, 'libs/vps/src/hosts/host-placement.js'));
const { HostsRepository } = require(path.join(DIST, 'libs/vps/src/hosts/hosts.repository.js'));

const flags = Object.fromEntries(process.argv.slice(2).map((arg) => /^--([a-z-]+)=(.*)$/.exec(arg)?.slice(1) ?? [arg, true]));
const HOSTS = Number(flags.hosts ?? 10_000);
const SAMPLES = Number(flags.samples ?? 2000);
const DB = flags.db ?? 'bench_placement';
const ADMIN = flags['admin-url'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NEED = { vcpus: 2, memoryMb: 2048, diskGb: 40 };
const ROLLBACK = new Error('rollback');

const urlOf = (db) => Object.assign(new URL(ADMIN), { pathname: `/${db}` }).toString();

async function prepare() {
  await withClient(ADMIN, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${DB}`);
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-placement-'));
  execFileSync(process.execPath, [path.join(DIST, 'apps/api/src/cli.js'), 'migration:run'], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: urlOf(DB),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      JWT_SECRET: 'bench-jwt-secret-0123456789abcdefghijklmnopqrstuvwxyz',
      SIGNING_SECRET: 'bench-signing-secret-0123456789abcdefghijklmnopqrstu',
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  fs.rmSync(dataDir, { recursive: true, force: true });
  await withClient(urlOf(DB), async (c) => {
    // 64 cores (x4), 256 GB, 4 TB each; 100 VPSes' worth used, give or take, some nearly full.
    const seed = (region, n) =>
      c.query(
        `INSERT INTO hosts (name, region, uri, vcpus, memory_mb, disk_gb, cpu_overcommit, used_vcpus, used_memory_mb, used_disk_gb)
         SELECT $1 || '-' || lpad(g::text, 5, '0'), $1, 'qemu+ssh://root@' || $1 || '-' || g || '/system', 64, 262144, 4000, 4,
                least(256, 100 + (hashtext('c' || g) & 127)), least(262144, 153600 + (hashtext('m' || g) & 65535) * 2),
                least(4000, 3000 + (hashtext('d' || g) & 1023))
           FROM generate_series(1, $2::int) g`,
        [region, n],
      );
    await seed('small', 10);
    await seed('provider', HOSTS);
    await c.query(
      `INSERT INTO accounts (id, email, name, password_hash) VALUES ('00000000-0000-4000-8000-000000000001', 'bench-placement@example.test', 'Bench', 'bench-no-login')`,
    );
    await c.query(
      `INSERT INTO services (id, account_id, product_id, name, type, status, price, currency, billing_cycle)
       SELECT '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', p.id, 'bench', 'vps', 'active', 1, 'EUR', 'monthly'
         FROM products p WHERE p.type = 'vps' LIMIT 1`,
    );
    await c.query('ANALYZE');
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(ds, policy) {
  const placement = new HostPlacement({ hosts: { placementPolicy: policy } }, new HostsRepository(ds));
  const times = { small: [], provider: [] };
  for (let i = 0; i < SAMPLES; i++) {
    for (const region of i % 2 ? ['small', 'provider'] : ['provider', 'small']) {
      await ds
        .transaction(async (m) => {
          const start = process.hrtime.bigint();
          await placement.place(m, '00000000-0000-4000-8000-000000000002', region, NEED);
          times[region].push(Number(process.hrtime.bigint() - start) / 1e6);
          throw ROLLBACK;
        })
        .catch((err) => (err === ROLLBACK ? undefined : Promise.reject(err)));
    }
  }
  const stats = Object.fromEntries(
    Object.entries(times).map(([region, list]) => {
      const sorted = list.slice(SAMPLES / 10).sort((a, b) => a - b); // the first tenth warms up
      return [region, { p50: +quantile(sorted, 0.5).toFixed(3), p99: +quantile(sorted, 0.99).toFixed(3) }];
    }),
  );
  return { policy, ...stats, p99Ratio: +(stats.provider.p99 / stats.small.p99).toFixed(2) };
}

async function main() {
  await prepare();
  const ds = new DataSource({ type: 'postgres', url: urlOf(DB), poolSize: 2 });
  await ds.initialize();
  try {
    const results = {
      hosts: { small: 10, provider: HOSTS },
      samples: SAMPLES,
      runs: [await measure(ds, 'spread'), await measure(ds, 'pack')],
    };
    const text = JSON.stringify(results, null, 2);
    process.stdout.write(`${text}\n`);
    if (flags.out) fs.writeFileSync(flags.out, `${text}\n`);
  } finally {
    await ds.destroy();
    await withClient(ADMIN, (c) => c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`));
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});

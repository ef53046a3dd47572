'use strict';
// The backups scenario, run with `npm run bench -- --only=backups`: one VPS disk
// backed up to the one-node Ceph RGW by the API's own code against a bare pipeline on the same
// machine (bench/backup-child.js says what each does), in alternation, each in a process of its
// own; the ratio is the median of the rounds' throughput ratios (target >= 0.8), on a disk of
// --backup-mb (128) and one four times larger; the API's process's peak RSS may not grow with the
// disk (the upload holds a few parts, never the disk). Needs libvirt (qemu:///system, pool `default`) and
// scripts/ensure-ceph.sh's gateway; without them the scenario is skipped with a line saying so.
const { execFileSync, spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { S3Client, CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command } = require('@aws-sdk/client-s3');

const ADMIN_ENV = '/var/lib/hosting-ceph/admin.env';
const POOL = 'default';
const CHILD = path.join(__dirname, 'backup-child.js');
const MIN_RATIO = 0.8;
/** The larger disk's peak RSS may be at most this much above the smaller one's. */
const MAX_RSS_GROWTH = 1.25;
const BACKUP_LIMIT_MS = 5 * 60_000;

const virsh = (...args) => execFileSync('virsh', ['-c', 'qemu:///system', ...args], { encoding: 'utf8' });

function gateway() {
  const env = Object.fromEntries(
    fs
      .readFileSync(ADMIN_ENV, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('export '))
      .map((l) => {
        const [name, ...value] = l.slice(7).split('=');
        return [name, value.join('=')];
      }),
  );
  return { endpoint: env.RGW_ADMIN_URL, accessKeyId: env.RGW_ADMIN_ACCESS_KEY, secretAccessKey: env.RGW_ADMIN_SECRET_KEY };
}

/** The pool the API makes when missing (StoragePool.ensure), made the same way on a fresh machine. */
function ensurePool() {
  try {
    virsh('pool-info', POOL);
  } catch {
    virsh('pool-define-as', '--name', POOL, '--type', 'dir', '--target', '/var/lib/libvirt/images');
    virsh('pool-build', POOL);
    virsh('pool-autostart', POOL);
  }
  if (!/^State:\s+running$/m.test(virsh('pool-info', POOL))) virsh('pool-start', POOL);
}

/** A stopped domain `svc-<id>` with no OS and a qcow2 root volume of `mb` MiB, every cluster written. */
function makeVps(workDir, mb) {
  const serviceId = randomUUID();
  const volume = `svc-${serviceId}-root.qcow2`;
  const file = path.join(workDir, `${serviceId}.qcow2`);
  execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', file, `${mb}M`]);
  // Not one pattern: a run of identical bytes compresses nowhere here, but random data is what a disk holds.
  execFileSync('qemu-io', ['-f', 'qcow2', '-c', `write -s /dev/urandom 0 ${mb}M`, file], { stdio: 'ignore' });
  virsh('vol-create-as', '--pool', POOL, '--name', volume, '--capacity', `${mb}M`, '--format', 'qcow2');
  virsh('vol-upload', '--pool', POOL, '--vol', volume, '--file', file);
  fs.rmSync(file);
  const xml = path.join(workDir, `${serviceId}.xml`);
  fs.writeFileSync(
    xml,
    `<domain type='qemu'><name>svc-${serviceId}</name><memory unit='MiB'>32</memory><vcpu>1</vcpu><os><type arch='x86_64' machine='pc'>hvm</type></os></domain>`,
  );
  virsh('define', xml);
  return { serviceId, volume, volumePath: virsh('vol-path', '--pool', POOL, volume).trim() };
}

function removeVps({ serviceId, volume }) {
  for (const args of [
    ['undefine', `svc-${serviceId}`],
    ['vol-delete', '--pool', POOL, volume],
    ['vol-delete', '--pool', POOL, `img-${serviceId}`],
  ]) {
    try {
      virsh(...args);
    } catch {
      /* already gone */
    }
  }
}

/** RSS in kB of the processes under `pid` (bash, virsh and cat of vol-download's pipe), not `pid` itself. */
function descendantsRssKb(pid) {
  const parents = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  let kb = 0;
  const under = (p) => {
    for (const [child, parent] of parents) {
      if (parent !== p) continue;
      try {
        kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        /* gone meanwhile */
      }
      under(child);
    }
  };
  under(pid);
  return kb;
}

/** Runs one backup in a child process, sampling its RSS every 20 ms (and its subprocesses' every 200 ms). */
function backup(mode, vps, key, workDir, s3, transfer) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, mode, vps.serviceId, key, vps.volumePath, workDir], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BENCH_BACKUP_S3: JSON.stringify(s3), BENCH_BACKUP_TRANSFER: transfer },
    });
    let out = '';
    let err = '';
    let peakKb = 0;
    let peakSubKb = 0;
    let samples = 0;
    // A gateway that stops taking writes (the one-node cluster's disk full) must not hang the bench.
    const limit = setTimeout(() => child.kill('SIGKILL'), BACKUP_LIMIT_MS);
    const sample = setInterval(() => {
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
        peakKb = Math.max(peakKb, kb);
        if (samples++ % 10 === 0) peakSubKb = Math.max(peakSubKb, descendantsRssKb(child.pid));
      } catch {
        /* the child has ended */
      }
    }, 20);
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => {
      clearInterval(sample);
      clearTimeout(limit);
      if (code !== 0) return reject(new Error(`backup-child ${mode} exited with ${code}: ${err.slice(-2000)}`));
      try {
        const { bytes, seconds, phases } = JSON.parse(out);
        resolve({
          bytes,
          seconds,
          phases,
          mbPerSecond: bytes / 1048576 / seconds,
          peakRssMb: Math.round(peakKb / 1024),
          peakSubprocessRssMb: Math.round(peakSubKb / 1024),
        });
      } catch (parseErr) {
        reject(new Error(`backup-child ${mode} printed no result (${parseErr.message}): ${out.slice(-500)}`));
      }
    });
  });
}

async function backupsScenario({ rounds = 3, smallMb = 128, transfer = 'auto', log }) {
  if (!fs.existsSync(ADMIN_ENV)) {
    log(`  backups         skipped: ${ADMIN_ENV} is missing (run scripts/ensure-ceph.sh)`);
    return null;
  }
  const gw = gateway();
  const bucket = `bench-backups-${randomUUID().slice(0, 8)}`;
  const s3 = { ...gw, region: 'default', bucket, forcePathStyle: true };
  const client = new S3Client({
    endpoint: gw.endpoint,
    region: 'default',
    forcePathStyle: true,
    credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  ensurePool();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-backups-'));
  const made = [];
  const emptyBucket = async () => {
    const { Contents = [] } = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    for (const o of Contents) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key }));
  };
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const round = (n) => Math.round(n * 100) / 100;
  /** Warm-up of both (page cache, the gateway's first writes), not measured; then rounds of api, bare. */
  const measure = async (mb) => {
    const vps = makeVps(workDir, mb);
    made.push(vps);
    await backup('api', vps, `warmup-${mb}/api`, workDir, s3, transfer);
    await emptyBucket();
    await backup('bare', vps, `warmup-${mb}/bare`, workDir, s3, transfer);
    await emptyBucket();
    const results = [];
    for (let i = 0; i < rounds; i++) {
      // Each object deleted at once: the one-node store holds one disk at a time (plus what its
      // garbage collector has not freed yet).
      const api = await backup('api', vps, `round-${i}/api`, workDir, s3, transfer);
      await emptyBucket();
      const bare = await backup('bare', vps, `round-${i}/bare`, workDir, s3, transfer);
      results.push({ api, bare, ratio: api.mbPerSecond / bare.mbPerSecond });
      log(
        `  backups         ${mb} MiB round ${i + 1}: api ${api.mbPerSecond.toFixed(1)} MB/s (${(api.bytes / 1048576).toFixed(0)} MB, peak RSS ${api.peakRssMb} MB, its virsh pipe ${api.peakSubprocessRssMb} MB), ` +
          `bare ${bare.mbPerSecond.toFixed(1)} MB/s, ratio ${(api.mbPerSecond / bare.mbPerSecond).toFixed(2)} ` +
          `(ms api ${JSON.stringify(api.phases)}, bare ${JSON.stringify(bare.phases)})`,
      );
      await emptyBucket();
    }
    return {
      diskMb: mb,
      apiMbPerSecond: round(median(results.map((r) => r.api.mbPerSecond))),
      bareMbPerSecond: round(median(results.map((r) => r.bare.mbPerSecond))),
      ratio: round(median(results.map((r) => r.ratio))),
      ratios: results.map((r) => round(r.ratio)),
      peakRssMb: median(results.map((r) => r.api.peakRssMb)),
      maxPeakRssMb: Math.max(...results.map((r) => r.api.peakRssMb)),
      maxSubprocessRssMb: Math.max(...results.map((r) => r.api.peakSubprocessRssMb)),
    };
  };
  try {
    const small = await measure(smallMb);
    const large = await measure(smallMb * 4);
    log(
      `  backups         peak RSS of the API's process: ${small.maxPeakRssMb} MB (${smallMb} MiB disk), ${large.maxPeakRssMb} MB (${smallMb * 4} MiB); ` +
        `of its vol-download pipe (virsh, outside the API's process): ${small.maxSubprocessRssMb} MB, ${large.maxSubprocessRssMb} MB`,
    );
    // The target is on the larger disk: a throughput, with the per-backup fixed cost (about ten
    // virsh calls, the copy's volume made and removed) spread over more bytes; both are reported.
    return {
      id: 'backups',
      title: `A stopped VPS's disk (${smallMb} and ${smallMb * 4} MiB) backed up to Ceph RGW by the API's code (LIBVIRT_DISK_TRANSFER=${transfer}) against qemu-img convert and the same multipart upload`,
      transfer,
      rounds,
      small,
      large,
      apiMbPerSecond: large.apiMbPerSecond,
      bareMbPerSecond: large.bareMbPerSecond,
      ratio: large.ratio,
      minRatio: MIN_RATIO,
      peakRssMb: { small: small.maxPeakRssMb, large: large.maxPeakRssMb, smallDiskMb: smallMb, largeDiskMb: smallMb * 4 },
      rssGrowth: round(large.maxPeakRssMb / small.maxPeakRssMb),
      maxRssGrowth: MAX_RSS_GROWTH,
    };
  } finally {
    for (const vps of made) removeVps(vps);
    await emptyBucket().catch(() => undefined);
    await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

module.exports = { backupsScenario };

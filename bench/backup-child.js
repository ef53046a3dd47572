'use strict';
// One backup in a process of its own, for bench/backups.js (which samples this process's RSS).
//   api:  the API's own code: the libvirt adapter's export of a stopped domain's disk (libvirt's
//         copy of the volume, read from its file here, or with BENCH_BACKUP_TRANSFER=stream out
//         of libvirt with vol-download through a FIFO) streamed into S3BackupStore's multipart
//         upload, as a backup job does it.
//   bare: `qemu-img convert` of the same volume to a file, then that file streamed into the same
//         S3BackupStore (the same client, part size and parallelism).
// Prints {bytes, seconds, phases (ms of the copy, the stream into the store, the release)} as JSON. BENCH_BACKUP_S3 holds the store's settings (JSON).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { Logger } = require('@nestjs/common');

// The result is this process's stdout: the adapter's log lines stay out of it.
Logger.overrideLogger(false);
const LIBS = path.join(__dirname, '../dist/apps/api/libs');
const { S3BackupStore } = require(`${LIBS}/vps/src/backups/s3-backup-store`);
const { LibvirtComputeProvider } = require(`${LIBS}/vps/src/compute/libvirt/libvirt-compute.provider`);
const { LibvirtParts } = require(`${LIBS}/vps/src/compute/libvirt/libvirt-parts`);
const { loadConfig } = require(`${LIBS}/core/src`);

const PART_BYTES = 16 * 1024 * 1024; // BACKUP_S3_PART_MB's default

async function main() {
  const [mode, serviceId, key, volumePath, workDir] = process.argv.slice(2);
  const store = new S3BackupStore(JSON.parse(process.env.BENCH_BACKUP_S3), PART_BYTES);
  const started = performance.now();
  const phases = {};
  let at = started;
  const phase = (name) => {
    const now = performance.now();
    phases[name] = Math.round(now - at);
    at = now;
  };
  let bytes;
  if (mode === 'api') {
    const config = loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-jwt-secret-0123456789abcdefghijklmnopqrstuvwxyz',
      SIGNING_SECRET: 'bench-signing-secret-0123456789abcdefghijklmnopqrstu',
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      DATA_DIR: workDir,
      COMPUTE_PROVIDER: 'libvirt',
      LIBVIRT_DISK_TRANSFER: process.env.BENCH_BACKUP_TRANSFER ?? 'auto',
    });
    const compute = new LibvirtComputeProvider(new LibvirtParts(config, { id: () => Promise.resolve('bench-backups') }));
    const instance = { serviceId, providerRef: `svc-${serviceId}`, region: '', host: null };
    const disk = await compute.exportDisk(instance, serviceId);
    phase('copyMs');
    try {
      bytes = await store.put(key, disk.stream);
      phase('streamMs');
    } finally {
      await disk.release();
      phase('releaseMs');
    }
  } else {
    const file = path.join(workDir, `bare-${serviceId}.qcow2`);
    execFileSync('qemu-img', ['convert', '-O', 'qcow2', volumePath, file]);
    phase('copyMs');
    try {
      bytes = await store.put(key, fs.createReadStream(file));
      phase('streamMs');
    } finally {
      fs.rmSync(file, { force: true });
    }
  }
  process.stdout.write(JSON.stringify({ bytes, seconds: (performance.now() - started) / 1000, phases }));
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});

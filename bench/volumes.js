'use strict';
// The volumes scenario, run with `npm run bench -- --only=volumes`: a tiny TCG guest (Debian's cloud
// kernel, busybox) writes and reads --volume-mb (256) with dd, in 1 MiB blocks and O_DIRECT, on its
// own root disk and on the volumes attached to it, and prints the times on its serial console.
// The guest is made by the API's own libvirt code: the compute adapter's createMachine with the
// root disk of a VPS (a qcow2 overlay on an image volume in pool `default`, and its seed), volumes
// made by the RBD backend (an image in a Ceph pool made for the bench and deleted after) and the
// local one (a raw volume of pool `default`), attached with attachVolume (the `<disk>` of
// volume-disks.ts, serial `vol-<16 hex>`). Rounds alternate the disks: writes (own disk, RBD,
// local), then reads after dropping the guest's caches; a first write of each (the thin images
// allocating) is not measured. Reports MiB/s of each and the volume/own-disk ratios (medians of
// the rounds' ratios); informational, no target: TCG is slow and noisy, and the one-node Ceph of
// scripts/ensure-ceph.sh keeps its objects in memory (memstore), not on a disk.
// Needs virsh (qemu:///system, pool `default`), the cloud kernel in /boot, busybox-static and
// genisoimage; without them it is skipped with a line saying so, and without a Ceph cluster that
// answers (/var/lib/hosting-ceph/ceph.conf) only the local volume is measured.
const { execFileSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { gzipSync } = require('node:zlib');
const { run, has, kernel, newcArchive, quietApiLogs } = require('./tcg-guest');

const CEPH_CONF = path.join(process.env.CEPH_DIR ?? '/var/lib/hosting-ceph', 'ceph.conf');
const LIBS = path.join(__dirname, '../dist/apps/api/libs');
const URI = 'qemu:///system';
const POOL = 'default';
/** virtio-blk and what it stands on, in the order they load (as test/support/volume-guest.ts). */
const VIRTIO_MODULES = ['virtio_ring', 'virtio', 'virtio_pci_legacy_dev', 'virtio_pci_modern_dev', 'virtio_pci', 'virtio_blk'];
const MARK = 'bench-volumes';
/** The cleanup of the scenario under way, if one is, and whether the bench is being stopped (stopVolumes). */
let pendingCleanup = null;
let stopping = false;

const virsh = (...args) => run('virsh', ['-c', URI, ...args]);
const ceph = (...args) => run('ceph', ['-c', CEPH_CONF, '--connect-timeout', '10', ...args], 30_000);

/** Why the scenario cannot run here, or null. */
function missing() {
  if (!has('virsh')) return 'virsh is not installed (libvirt-clients)';
  try {
    execFileSync('virsh', ['-c', URI, 'version'], { stdio: 'ignore', timeout: 20_000 });
  } catch {
    return `libvirt does not answer on ${URI}`;
  }
  if (!kernel()) return 'no cloud kernel under /boot (apt-get install linux-image-cloud-amd64)';
  if (!fs.existsSync('/bin/busybox')) return '/bin/busybox is missing (apt-get install busybox-static)';
  if (!has('genisoimage')) return 'genisoimage is not installed (the VPS seed needs it)';
  if (!fs.existsSync(`${LIBS}/vps/src/compute/libvirt/libvirt-compute.provider.js`)) return 'the API is not built (npm run build)';
  return null;
}

/** Why RBD cannot be measured (no cluster, or one that does not answer), or null. */
async function cephMissing() {
  if (!fs.existsSync(CEPH_CONF)) return `${CEPH_CONF} is missing (run scripts/ensure-ceph.sh)`;
  try {
    await ceph('osd', 'pool', 'ls');
    return null;
  } catch (err) {
    return `the Ceph cluster of ${CEPH_CONF} does not answer (${err.message.split('\n').pop()})`;
  }
}

/** `mon host = v1:127.0.0.1:6789` of the conf, as CEPH_MON_HOST takes it (test/support/ceph.ts cephMonHost). */
function cephMonHost() {
  const host = /^\s*mon[ _]host\s*=\s*(?:v[12]:)?(\S+)/m.exec(fs.readFileSync(CEPH_CONF, 'utf8'))?.[1];
  if (!host) throw new Error(`No mon host in ${CEPH_CONF}`);
  return host;
}

/**
 * The guest's init: finds its own disk (the virtio disk without a serial: the root disk has none)
 * and each volume by its serial in sysfs, then writes a warm-up pass and `rounds` rounds of
 * writes and reads, each dd timed by the guest's clock (/proc/timer_list's nanoseconds, else /proc/uptime's 10 ms),
 * one console line per dd, and powers off.
 */
function initScript(volumes, mb, rounds) {
  const lines = volumes.map((v) => `find_disk ${v.name} ${v.serial}`).join('\n');
  const names = ['own', ...volumes.map((v) => v.name)].join(' ');
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
say() { echo "bench-volumes: $*"; }
fail() { say "failed: $*"; poweroff -f; sleep 3600; }
say booted
for module in ${VIRTIO_MODULES.join(' ')}; do insmod /$module.ko || fail "insmod $module"; done
find_disk() {
  for try in $(seq 1 20); do
    for disk in /sys/block/vd*; do
      [ -e "$disk" ] || continue
      if [ "$(cat "$disk/serial" 2>/dev/null)" = "$2" ]; then eval "dev_$1=/dev/$(basename "$disk")"; return; fi
    done
    sleep 1
  done
  fail "no disk with serial '$2' for $1"
}
find_disk own ""
${lines}
for name in ${names}; do eval "say disk $name \\$dev_$name"; done
# Nanoseconds of the kernel's monotonic clock (/proc/timer_list), else /proc/uptime's hundredths.
if grep -q '^now at [0-9]* nsecs' /proc/timer_list 2>/dev/null; then
  say clock timer_list
  now() { sed -n 's/^now at \\([0-9]*\\) nsecs$/\\1/p' /proc/timer_list; }
else
  say clock uptime
  now() { echo "$(cut -d' ' -f1 /proc/uptime | tr -d .)0000000"; }
fi
timed() {
  start=$(now)
  "$@" 2>/tmp/dd.err || fail "$(cat /tmp/dd.err)"
  end=$(now)
}
write_disk() {
  eval "dev=\\$dev_$1"
  timed dd if=/dev/zero of=$dev bs=1M count=${mb} oflag=direct conv=fsync
  say result $2 $1 write ${mb} $start $end
}
read_disk() {
  eval "dev=\\$dev_$1"
  sync
  echo 3 > /proc/sys/vm/drop_caches
  timed dd if=$dev of=/dev/null bs=1M count=${mb} iflag=direct
  say result $2 $1 read ${mb} $start $end
}
for name in ${names}; do write_disk $name 0; done
for round in $(seq 1 ${rounds}); do
  for name in ${names}; do write_disk $name $round; done
  for name in ${names}; do read_disk $name $round; done
done
say done
poweroff -f
sleep 3600
`;
}

/** The guest's folder: kernel, initramfs and the domain template (a VPS's {{disks}}; its console to a file). */
function buildGuest(volumes, mb, rounds) {
  const name = kernel();
  const modules = `/lib/modules/${name.slice('vmlinuz-'.length)}/kernel/drivers`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-volumes-'));
  // QEMU runs as another user: it must reach the kernel and initrd, and write the console log.
  fs.chmodSync(dir, 0o777);
  fs.copyFileSync(`/boot/${name}`, path.join(dir, 'vmlinuz'));
  const files = [
    { name: 'bin', mode: 0o40755 },
    { name: 'bin/busybox', mode: 0o100755, data: fs.readFileSync('/bin/busybox') },
    { name: 'tmp', mode: 0o40755 },
    { name: 'init', mode: 0o100755, data: Buffer.from(initScript(volumes, mb, rounds)) },
    ...VIRTIO_MODULES.map((module) => ({
      name: `${module}.ko`,
      mode: 0o100644,
      data: fs.readFileSync(path.join(modules, module === 'virtio_blk' ? 'block' : 'virtio', `${module}.ko`)),
    })),
  ];
  fs.writeFileSync(path.join(dir, 'initrd.gz'), gzipSync(newcArchive(files)));
  const template = path.join(dir, 'bench-volumes.xml');
  fs.writeFileSync(
    template,
    `<domain type='qemu'>
  <name>{{name}}</name>
  <memory unit='MiB'>{{memoryMb}}</memory>
  <vcpu>{{vcpus}}</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>${dir}/vmlinuz</kernel>
    <initrd>${dir}/initrd.gz</initrd>
    <cmdline>console=ttyS0 quiet panic=-1</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    {{disks}}
    <serial type='file'><source path='${dir}/{{name}}.log'/></serial>
    <graphics type='vnc' autoport='yes' listen='{{vncListen}}' passwd='{{vncPassword}}'/>
  </devices>
</domain>
`,
  );
  return { dir, template, consoleLog: (domain) => path.join(dir, `${domain}.log`) };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round2 = (n) => Math.round(n * 100) / 100;
const round1 = (n) => Math.round(n * 10) / 10;

/** The results the guest printed: {round, disk, op, mb, seconds}, and whether it is done or failed. */
function parseConsole(text) {
  const results = [];
  for (const [, round, disk, op, mb, start, end] of text.matchAll(
    /^bench-volumes: result (\d+) (\S+) (write|read) (\d+) (\d+) (\d+)\s*$/gm,
  )) {
    results.push({ round: Number(round), disk, op, mb: Number(mb), seconds: (Number(end) - Number(start)) / 1e9 });
  }
  return {
    results,
    done: /^bench-volumes: done/m.test(text),
    failed: /^bench-volumes: failed: (.*)$/m.exec(text)?.[1] ?? null,
    clock: /^bench-volumes: clock (\S+)/m.exec(text)?.[1] ?? null,
    disks: Object.fromEntries([...text.matchAll(/^bench-volumes: disk (\S+) (\S+)/gm)].map(([, disk, dev]) => [disk, dev])),
  };
}

const LABELS = { own: 'own disk', rbd: 'RBD', local: 'local pool' };

async function volumesScenario({ rounds = 3, volumeMb = 256, log }) {
  if (!Number.isInteger(volumeMb) || volumeMb < 1) throw new Error(`--volume-mb must be a whole number of MiB (got ${volumeMb})`);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be at least 1 (got ${rounds})`);
  const why = missing();
  if (why) {
    log(`  volumes         skipped: ${why}`);
    return null;
  }
  const noCeph = await cephMissing();
  if (noCeph) log(`  volumes         RBD skipped: ${noCeph}; the local-pool volume only`);

  // The API's own code, compiled, its logs kept quiet.
  const said = quietApiLogs();
  const { loadConfig } = require(`${LIBS}/core/src`);
  const { LibvirtParts } = require(`${LIBS}/vps/src/compute/libvirt/libvirt-parts`);
  const { LibvirtComputeProvider } = require(`${LIBS}/vps/src/compute/libvirt/libvirt-compute.provider`);
  const { LocalVolumeBackend } = require(`${LIBS}/vps/src/compute/volumes/local-volume-backend`);
  const { volumeBackendFor } = require(`${LIBS}/vps/src/compute/volumes/volume-backend-for`);
  const { volumeName, volumeSerial } = require(`${LIBS}/vps/src/compute/volumes/volume-names`);
  const { imageVolume, rootVolumeOf } = require(`${LIBS}/vps/src/compute/libvirt/volume-names`);

  const serviceId = randomUUID();
  const domain = `svc-${serviceId}`;
  const instance = { serviceId, providerRef: domain, region: '', host: null };
  const imageId = randomUUID();
  const rbdPool = `bench-volumes-${randomUUID().slice(0, 8)}`;
  const gb = Math.max(1, Math.ceil(volumeMb / 1024));
  const volumes = [
    ...(noCeph ? [] : [{ name: 'rbd', ref: { volumeId: randomUUID(), region: '' } }]),
    { name: 'local', ref: { volumeId: randomUUID(), region: '' } },
  ].map((v) => ({ ...v, volume: volumeName(v.ref.volumeId), serial: volumeSerial(v.ref.volumeId) }));
  const guest = buildGuest(volumes, volumeMb, rounds);
  const made = () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-jwt-secret-0123456789abcdefghijklmnopqrstuvwxyz',
      SIGNING_SECRET: 'bench-signing-secret-0123456789abcdefghijklmnopqrstu',
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      DATA_DIR: guest.dir,
      COMPUTE_PROVIDER: 'libvirt',
      LIBVIRT_URI: URI,
      LIBVIRT_STORAGE_POOL: POOL,
      LIBVIRT_DOMAIN_TEMPLATE: guest.template,
      ...(noCeph ? { VOLUME_BACKEND: 'local' } : { VOLUME_BACKEND: 'rbd', CEPH_MON_HOST: cephMonHost(), VOLUMES_RBD_POOL: rbdPool }),
    });
    const identity = { id: () => Promise.resolve(MARK) };
    const parts = new LibvirtParts(config, identity);
    const backends = { local: new LocalVolumeBackend(parts), ...(noCeph ? {} : { rbd: volumeBackendFor(parts, config, identity) }) };
    return { parts, compute: new LibvirtComputeProvider(parts), backends };
  };
  let parts, compute, backends;
  try {
    ({ parts, compute, backends } = made());
  } catch (err) {
    fs.rmSync(guest.dir, { recursive: true, force: true });
    throw err;
  }
  const madeImage = { done: false };
  const started = Date.now();
  let cleaning = null;
  const clean = () =>
    (cleaning ??= cleanup({ compute, instance, domain, volumes, backends, rbdPool, imageId, madeImage, imageVolume, noCeph, log }).finally(
      () => fs.rmSync(guest.dir, { recursive: true, force: true }),
    ));
  pendingCleanup = clean;
  try {
    // The image a VPS's root disk stands on (its content does not matter: the kernel boots directly).
    await parts.pool.ensure(URI);
    await virsh('vol-create-as', '--pool', POOL, '--name', imageVolume(imageId), '--capacity', '1M', '--format', 'qcow2');
    madeImage.done = true;
    const boot = { imageId, imageFormat: 'qcow2', diskGb: gb, seed: { instanceId: randomUUID(), hostname: 'bench-volumes', sshKeys: [] } };
    await compute.createMachine(instance, { vcpus: 1, memoryMb: 256, powerOn: false, boot });
    for (const v of volumes) {
      await backends[v.name].create(v.ref, gb);
      await compute.attachVolume(instance, v.ref.volumeId, backends[v.name].diskSource(v.ref));
    }
    log(
      `  volumes         guest ${domain}: own disk ${rootVolumeOf(serviceId)} (qcow2 overlay, ${gb} GiB), ` +
        volumes.map((v) => `${LABELS[v.name]} ${v.volume} (serial ${v.serial})`).join(', ') +
        `; ${volumeMb} MiB per dd, ${rounds} rounds after a warm-up write`,
    );
    await virsh('start', domain);

    // Every dd at 5 MiB/s at worst (TCG on a loaded machine), plus two minutes for boot and set-up.
    const dds = (1 + volumes.length) * (1 + 2 * rounds);
    const limit = Date.now() + 120_000 + dds * volumeMb * 200;
    let seen = 0;
    let state = parseConsole('');
    const read = () => (fs.existsSync(guest.consoleLog(domain)) ? fs.readFileSync(guest.consoleLog(domain), 'utf8') : '');
    while (!state.done) {
      if (stopping) throw new Error('stopped by a signal');
      if (state.failed) throw new Error(`the guest failed: ${state.failed}`);
      if (Date.now() > limit) throw new Error(`the guest did not finish in time; its console:\n${read().slice(-2000)}`);
      await sleep(1000);
      state = parseConsole(read());
      for (const r of state.results.slice(seen)) {
        const rate = r.mb / r.seconds;
        log(
          `  volumes         ${r.round ? `round ${r.round}` : 'warm-up'} ${r.op.padEnd(5)} ${LABELS[r.disk].padEnd(10)} ${state.disks[r.disk] ?? ''} ${rate.toFixed(1)} MiB/s (${r.seconds.toFixed(3)} s)`,
        );
      }
      seen = state.results.length;
      if (!state.done && !state.failed && !/running|paused/.test(await virsh('domstate', domain).catch(() => 'gone'))) {
        state = parseConsole(read());
        if (stopping) throw new Error('stopped by a signal');
        if (!state.done) throw new Error(`the guest stopped before it finished; its console:\n${read().slice(-2000)}`);
      }
    }
    const measured = state.results.filter((r) => r.round > 0);
    const rate = (disk, op, round) => {
      const r = measured.find((m) => m.disk === disk && m.op === op && m.round === round);
      return r.mb / r.seconds;
    };
    const roundsList = Array.from({ length: rounds }, (_, i) => i + 1);
    const of = (disk) => ({
      writeMbPerSecond: round1(median(roundsList.map((i) => rate(disk, 'write', i)))),
      readMbPerSecond: round1(median(roundsList.map((i) => rate(disk, 'read', i)))),
    });
    const ownDisk = of('own');
    const row = {
      id: 'volumes',
      title: `Sequential write and read (dd, 1 MiB blocks, O_DIRECT) of ${volumeMb} MiB in a TCG guest: through attached volumes against its own root disk`,
      unit: 'MiB/s',
      volumeMb,
      rounds,
      ownDisk: { ...ownDisk, volume: rootVolumeOf(serviceId), format: 'qcow2 overlay, cache as the domain template (QEMU default)' },
      rbd: null,
      local: null,
      skipped: noCeph ? { rbd: noCeph } : {},
      results: measured.map((r) => ({ ...r, mbPerSecond: round1(r.mb / r.seconds) })),
      warmup: state.results.filter((r) => r.round === 0).map((r) => ({ ...r, mbPerSecond: round1(r.mb / r.seconds) })),
      guestClock: state.clock,
      guestSeconds: Math.round((Date.now() - started) / 1000),
      targets: 'none: informational (TCG, and a memstore OSD)',
    };
    for (const v of volumes) {
      const writeRatios = roundsList.map((i) => round2(rate(v.name, 'write', i) / rate('own', 'write', i)));
      const readRatios = roundsList.map((i) => round2(rate(v.name, 'read', i) / rate('own', 'read', i)));
      row[v.name] = {
        ...of(v.name),
        writeRatio: median(writeRatios),
        readRatio: median(readRatios),
        writeRatios,
        readRatios,
        volume: v.volume,
        serial: v.serial,
        ...(v.name === 'rbd' ? { pool: rbdPool, cache: 'none' } : { pool: POOL, cache: 'QEMU default' }),
      };
    }
    // What the stores hold after the writes: the own disk (a qcow2 overlay) and the RBD image are
    // thin, so these show the guest's zeros reached them (QEMU's detect-zeroes is off); libvirt
    // makes a local raw volume fully allocated (vol-create-as without --allocation).
    row.ownDisk.allocatedMb = Math.round((await parts.pool.sizes(URI, rootVolumeOf(serviceId))).allocation / 1048576);
    if (row.local) row.local.allocatedMb = Math.round((await parts.pool.sizes(URI, row.local.volume)).allocation / 1048576);
    if (row.rbd) {
      const du = JSON.parse(await run('rbd', ['-c', CEPH_CONF, 'du', `${rbdPool}/${row.rbd.volume}`, '--format', 'json']));
      row.rbd.allocatedMb = Math.round((du.images?.[0]?.used_size ?? NaN) / 1048576);
    }
    return row;
  } catch (err) {
    if (said.length) err.message += `\nThe API code's last warnings:\n${said.join('\n')}`;
    throw err;
  } finally {
    await clean();
    pendingCleanup = null;
  }
}

/** Awaits the cleanup of a scenario under way: run.js's SIGINT and SIGTERM handlers exit before a `finally` would run. */
async function stopVolumes() {
  stopping = true;
  if (pendingCleanup) await pendingCleanup();
}

/** Everything the scenario made, each step on its own so one failure leaves the others done. */
async function cleanup({ compute, instance, domain, volumes, backends, rbdPool, imageId, madeImage, imageVolume, noCeph, log }) {
  const step = async (what, fn) => {
    try {
      await fn();
    } catch (err) {
      log(`  volumes         cleanup: ${what} failed: ${err.message}`);
    }
  };
  // The domain, its root disk and seed (destroyMachine powers it off first if it still runs).
  await step(`removing ${domain}`, () => compute.destroyMachine(instance));
  for (const v of volumes) await step(`removing the ${LABELS[v.name]} volume`, () => backends[v.name].remove(v.ref));
  if (madeImage.done) await step('removing the image volume', () => virsh('vol-delete', '--pool', POOL, imageVolume(imageId)));
  if (!noCeph) {
    await step(`removing the RBD pool ${rbdPool}`, async () => {
      const pools = JSON.parse(await ceph('osd', 'pool', 'ls', '--format', 'json'));
      if (pools.includes(rbdPool)) await ceph('osd', 'pool', 'rm', rbdPool, rbdPool, '--yes-i-really-really-mean-it');
    });
  }
}

/** The summary lines of a row, for run.js's printed summary. */
function volumesSummary(row) {
  const own = row.ownDisk;
  return ['rbd', 'local']
    .filter((name) => row[name])
    .map((name) => {
      const v = row[name];
      return (
        `Volumes (${LABELS[name]}, ${row.volumeMb} MiB, ${row.rounds} rounds): write ${v.writeMbPerSecond} MiB/s vs own disk ${own.writeMbPerSecond} MiB/s (${v.writeRatio.toFixed(2)}), ` +
        `read ${v.readMbPerSecond} MiB/s vs own disk ${own.readMbPerSecond} MiB/s (${v.readRatio.toFixed(2)}); informational`
      );
    });
}

module.exports = { volumesScenario, volumesSummary, stopVolumes };

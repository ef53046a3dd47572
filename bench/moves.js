'use strict';
// The moves scenario, run with `npm run bench -- --only=moves`: what a customer's running server
// notices of a host drain. Two libvirt daemons of the bench's own (session daemons of `nobody`, each
// with a host UUID of its own: libvirt migrates only between different ones) are the two hosts; a
// tiny TCG guest (Debian's cloud kernel, busybox) is made by the API's own libvirt code
// (createMachine: a qcow2 root disk on an image volume, and its seed) and moved with the relocation
// adapter the drain uses (LibvirtRelocation.migrate: libvirt's live migration, the root disk copied
// along). Measured: the live move of the guest idle and busy (a dirty-page writer rewriting 96 MiB
// of non-zero bytes in a tmpfs over and over, 8 MiB at a time with dd), `--rounds` moves each, back and forth: libvirt's
// downtime (domjobinfo --completed on the new host) and the move's total time; then one cold move
// of the idle guest as `host:drain --cold` does it (forced off, LibvirtRelocation.copy, started on
// the new host) with its downtime, from power-off until the guest's init speaks again. After each
// live move the guest must tick on with its uptime gone on (the same boot). Informational, no
// target: TCG is slow and noisy. Needs virsh, libvirtd, setpriv, the cloud kernel in /boot,
// busybox-static and genisoimage; without them it is skipped with a line saying so.
const { execFileSync, spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { gzipSync } = require('node:zlib');
const { run, has, kernel, newcArchive, quietApiLogs } = require('./tcg-guest');

const LIBS = path.join(__dirname, '../dist/apps/api/libs');
const LIBVIRTD = '/usr/sbin/libvirtd';
const NOBODY = 65534;
const MARK = 'bench-moves';
const MEMORY_MB = 256;
const DIRTY_MB = 96;
const MIGRATION_TIMEOUT_MS = 10 * 60_000;
/** The daemons and guests of the scenario under way, for stopMoves. */
let pendingCleanup = null;
let stopping = false;

function missing() {
  if (!has('virsh')) return 'virsh is not installed (libvirt-clients)';
  if (!fs.existsSync(LIBVIRTD)) return `${LIBVIRTD} is missing (libvirt-daemon-system)`;
  if (!has('setpriv')) return 'setpriv is missing (util-linux)';
  if (process.getuid?.() !== 0) return 'the daemons run as nobody: the bench must run as root';
  if (!kernel()) return 'no cloud kernel under /boot (apt-get install linux-image-cloud-amd64)';
  if (!fs.existsSync('/bin/busybox')) return '/bin/busybox is missing (apt-get install busybox-static)';
  if (!has('genisoimage')) return 'genisoimage is not installed (the VPS seed needs it)';
  if (!fs.existsSync(`${LIBS}/vps/src/compute/libvirt/libvirt-relocation.js`)) return 'the API is not built (npm run build)';
  return null;
}

/** A libvirtd of `nobody` with its state, socket and pool in a temp dir, and a host UUID of its own. */
async function startDaemon() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-moves-libvirtd-'));
  const sub = (name) => path.join(dir, name);
  for (const name of ['run', 'config/libvirt', 'cache', 'data', 'pool']) fs.mkdirSync(sub(name), { recursive: true });
  fs.writeFileSync(sub('config/libvirt/qemu.conf'), 'stdio_handler = "file"\n');
  fs.writeFileSync(sub('config/libvirt/libvirtd.conf'), `log_outputs = "3:stderr"\nhost_uuid = "${randomUUID()}"\n`);
  execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
  fs.chmodSync(dir, 0o755);
  const pidFile = sub('libvirtd.pid');
  const socket = sub('run/libvirt/libvirt-sock');
  const child = spawn(
    'setpriv',
    ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', LIBVIRTD, '--pid-file', pidFile],
    {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        XDG_RUNTIME_DIR: sub('run'),
        XDG_CONFIG_HOME: sub('config'),
        XDG_CACHE_HOME: sub('cache'),
        XDG_DATA_HOME: sub('data'),
        LC_ALL: 'C',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let said = '';
  child.stderr.on('data', (chunk) => (said = (said + chunk).slice(-2000)));
  const until = Date.now() + 30_000;
  while (!(fs.existsSync(socket) && fs.existsSync(pidFile))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`a libvirtd of the bench did not start: ${said}`);
    }
    await sleep(200);
  }
  const uri = `qemu+unix:///session?socket=${socket}`;
  const virsh = (...args) => run('virsh', ['-c', uri, ...args], 120_000);
  await virsh('pool-define-as', 'default', 'dir', '--target', sub('pool'));
  await virsh('pool-start', 'default');
  return {
    uri,
    virsh,
    async stop() {
      for (const name of (await virsh('list', '--all', '--name').catch(() => '')).split('\n').filter(Boolean)) {
        await virsh('destroy', name).catch(() => undefined);
        await virsh('undefine', name).catch(() => undefined);
      }
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The guest's init: says it is ready (and its mode, from the kernel's command line), then, when busy,
 * rewrites DIRTY_MB of non-zero bytes in a tmpfs over and over (QEMU sends zero pages almost for free),
 * saying how long each pass took; and ticks once a second with its uptime.
 */
const INIT = `#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /mem
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o size=${DIRTY_MB + 16}m tmpfs /mem
mode=$(sed -n 's/.*bench[.]mode=\\([a-z]*\\).*/\\1/p' /proc/cmdline)
echo "bench-moves: ready $mode"
if [ "$mode" = busy ]; then
  yes 0123456789abcdef | head -c 8388608 > /mem/source
  (while :; do
    start=$(cut -d' ' -f1 /proc/uptime)
    for i in $(seq 0 $((${DIRTY_MB} / 8 - 1))); do dd if=/mem/source of=/mem/dirty bs=1M count=8 seek=$((i * 8)) conv=notrunc 2>/dev/null; done
    echo "bench-moves: wrote ${DIRTY_MB} $start $(cut -d' ' -f1 /proc/uptime)"
  done) &
fi
while :; do echo "bench-moves: tick $(cut -d' ' -f1 /proc/uptime)"; sleep 1; done
`;

/** Kernel, initrd and one domain template per mode, readable by the daemons' user; the consoles are written there. */
function buildGuest() {
  const name = kernel();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-moves-guest-'));
  fs.chmodSync(dir, 0o777);
  fs.copyFileSync(`/boot/${name}`, path.join(dir, 'vmlinuz'));
  fs.chmodSync(path.join(dir, 'vmlinuz'), 0o644);
  const files = [
    { name: 'bin', mode: 0o40755 },
    { name: 'bin/busybox', mode: 0o100755, data: fs.readFileSync('/bin/busybox') },
    { name: 'init', mode: 0o100755, data: Buffer.from(INIT) },
  ];
  fs.writeFileSync(path.join(dir, 'initrd.gz'), gzipSync(newcArchive(files)), { mode: 0o644 });
  const template = (mode) => {
    const file = path.join(dir, `${mode}.xml`);
    fs.writeFileSync(
      file,
      `<domain type='qemu'>
  <name>{{name}}</name>
  <memory unit='MiB'>{{memoryMb}}</memory>
  <vcpu>{{vcpus}}</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>${dir}/vmlinuz</kernel>
    <initrd>${dir}/initrd.gz</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 bench.mode=${mode}</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    {{disks}}
    <serial type='file'><source path='${dir}/{{name}}.log' append='on'/></serial>
    <graphics type='vnc' autoport='yes' listen='{{vncListen}}' passwd='{{vncPassword}}'/>
  </devices>
</domain>
`,
    );
    return file;
  };
  return { dir, templates: { idle: template('idle'), busy: template('busy') }, consoleLog: (domain) => path.join(dir, `${domain}.log`) };
}

/** What the guest's console said: its ticks (uptime in seconds), the busy writer's passes, and whether it is ready. */
function parseConsole(text) {
  return {
    ready: /^bench-moves: ready/m.test(text),
    ticks: [...text.matchAll(/^bench-moves: tick (\d+\.\d+)\s*$/gm)].map((m) => Number(m[1])),
    passes: [...text.matchAll(/^bench-moves: wrote (\d+) (\d+\.\d+) (\d+\.\d+)\s*$/gm)].map((m) => ({
      mb: Number(m[1]),
      seconds: Number(m[3]) - Number(m[2]),
    })),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (ms) => Math.round(ms / 100) / 10;

async function movesScenario({ rounds = 3, log }) {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be at least 1 (got ${rounds})`);
  const why = missing();
  if (why) {
    log(`  moves           skipped: ${why}`);
    return null;
  }
  const said = quietApiLogs();
  const { loadConfig } = require(`${LIBS}/core/src`);
  const { LibvirtParts } = require(`${LIBS}/vps/src/compute/libvirt/libvirt-parts`);
  const { LibvirtComputeProvider } = require(`${LIBS}/vps/src/compute/libvirt/libvirt-compute.provider`);
  const { LibvirtRelocation } = require(`${LIBS}/vps/src/compute/libvirt/libvirt-relocation`);
  const { imageVolume } = require(`${LIBS}/vps/src/compute/libvirt/volume-names`);

  const guest = buildGuest();
  const daemons = [];
  const guests = [];
  let cleaning = null;
  const clean = () =>
    (cleaning ??= (async () => {
      for (const g of guests) await g.compute.destroyMachine(g.instance).catch((err) => log(`  moves           cleanup: ${err.message}`));
      for (const d of daemons) await d.stop().catch((err) => log(`  moves           cleanup: ${err.message}`));
      fs.rmSync(guest.dir, { recursive: true, force: true });
    })());
  pendingCleanup = clean;
  try {
    daemons.push(await startDaemon(), await startDaemon());
    const hosts = daemons.map((d, i) => ({
      id: randomUUID(),
      name: `bench-host-${'ab'[i]}`,
      uri: d.uri,
      vncListen: '127.0.0.1',
      state: 'active',
    }));
    const imageId = randomUUID();
    await daemons[0].virsh('vol-create-as', 'default', imageVolume(imageId), '1M', '--format', 'qcow2');

    const partsFor = (mode) =>
      new LibvirtParts(
        loadConfig({
          NODE_ENV: 'production',
          JWT_SECRET: 'bench-jwt-secret-0123456789abcdefghijklmnopqrstuvwxyz',
          SIGNING_SECRET: 'bench-signing-secret-0123456789abcdefghijklmnopqrstu',
          ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
          DATA_DIR: guest.dir,
          COMPUTE_PROVIDER: 'libvirt',
          LIBVIRT_URI: daemons[0].uri,
          LIBVIRT_STORAGE_POOL: 'default',
          LIBVIRT_DOMAIN_TEMPLATE: guest.templates[mode],
        }),
        { id: () => Promise.resolve(MARK) },
      );

    const read = (domain) => (fs.existsSync(guest.consoleLog(domain)) ? fs.readFileSync(guest.consoleLog(domain), 'utf8') : '');
    const waitFor = async (domain, what, test, timeoutMs = 180_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        if (stopping) throw new Error('stopped by a signal');
        const state = parseConsole(read(domain));
        if (test(state)) return state;
        if (Date.now() > until)
          throw new Error(`${domain}: no ${what} within ${timeoutMs / 1000} s; its console:\n${read(domain).slice(-1500)}`);
        await sleep(250);
      }
    };

    const boot = async (mode) => {
      const parts = partsFor(mode);
      const serviceId = randomUUID();
      const instance = { serviceId, providerRef: `svc-${serviceId}`, region: '', host: hosts[0] };
      const g = {
        mode,
        instance,
        domain: instance.providerRef,
        compute: new LibvirtComputeProvider(parts),
        relocation: new LibvirtRelocation(parts),
      };
      guests.push(g);
      const seed = { instanceId: randomUUID(), hostname: `bench-moves-${mode}`, sshKeys: [] };
      await g.compute.createMachine(instance, {
        vcpus: 1,
        memoryMb: MEMORY_MB,
        powerOn: true,
        boot: { imageId, imageFormat: 'qcow2', diskGb: 1, seed },
      });
      await waitFor(g.domain, 'ready line', (s) => s.ready && s.ticks.length > 0 && (mode === 'idle' || s.passes.length >= 2));
      return g;
    };
    const other = (host) => hosts.find((h) => h.id !== host.id);
    const daemonOf = (host) => daemons[hosts.indexOf(host)];

    /** One live move of the guest to the other host, and its tick afterwards with the uptime gone on. */
    const liveMove = async (g) => {
      const before = parseConsole(read(g.domain));
      const lastTick = before.ticks.at(-1);
      const to = other(g.instance.host);
      const started = Date.now();
      const { downtimeMs } = await g.relocation.migrate(g.instance, to, MIGRATION_TIMEOUT_MS);
      const totalMs = Date.now() - started;
      g.instance = { ...g.instance, host: to };
      const seen = before.ticks.length;
      const { ticks } = await waitFor(g.domain, 'tick after the move', (s) => s.ticks.length > seen + 1, 60_000);
      // Ticks go on from where they were: a guest that crashed and booted again would count from zero.
      if (!ticks.slice(seen).every((t, i, after) => t > (i ? after[i - 1] : lastTick)))
        throw new Error(`${g.domain}: its uptime went back after the move (${lastTick} s, then ${ticks.slice(seen).join(', ')})`);
      const dirtyMbPerSecond = before.passes.length ? median(before.passes.slice(-3).map((p) => p.mb / p.seconds)) : null;
      const move = {
        to: to.name,
        downtimeMs,
        totalSeconds: seconds(totalMs),
        ...(dirtyMbPerSecond === null ? {} : { dirtyMbPerSecond: Math.round(dirtyMbPerSecond) }),
      };
      log(
        `  moves           live ${g.mode.padEnd(4)} -> ${to.name}: downtime ${downtimeMs ?? '?'} ms, total ${move.totalSeconds} s` +
          (dirtyMbPerSecond === null ? '' : ` (the guest dirtied ${move.dirtyMbPerSecond} MiB/s before it)`),
      );
      return move;
    };

    log(`  moves           two libvirtds of the bench's own; a ${MEMORY_MB} MiB TCG guest, ${rounds} live move(s) idle and busy, one cold`);
    const idle = await boot('idle');
    const idleMoves = [];
    for (let i = 0; i < rounds; i++) idleMoves.push(await liveMove(idle));

    // Cold, as `host:drain --cold`: powered off, copied, started on the new host; down until its init speaks again.
    const to = other(idle.instance.host);
    const offAt = Date.now();
    // Forced off at once, as the stop action does after COMPUTE_STOP_TIMEOUT_SECONDS (this init ignores ACPI).
    await daemonOf(idle.instance.host).virsh('destroy', idle.domain);
    const copyStart = Date.now();
    await idle.relocation.copy(idle.instance, to);
    const copySeconds = seconds(Date.now() - copyStart);
    idle.instance = { ...idle.instance, host: to };
    fs.rmSync(guest.consoleLog(idle.domain), { force: true });
    await daemonOf(to).virsh('start', idle.domain);
    await waitFor(idle.domain, 'ready line after the cold move', (s) => s.ready && s.ticks.length > 0);
    const cold = { to: to.name, downtimeSeconds: seconds(Date.now() - offAt), copySeconds };
    log(`  moves           cold idle -> ${to.name}: down ${cold.downtimeSeconds} s (copy ${copySeconds} s, then a boot)`);

    const busy = await boot('busy');
    const busyMoves = [];
    for (let i = 0; i < rounds; i++) busyMoves.push(await liveMove(busy));

    const summary = (moves) => ({
      downtimeMs: median(moves.map((m) => m.downtimeMs ?? NaN)),
      totalSeconds: median(moves.map((m) => m.totalSeconds)),
      moves,
    });
    return {
      id: 'moves',
      title: `A running ${MEMORY_MB} MiB TCG guest moved between two libvirt hosts on one machine: live (idle, and busy rewriting ${DIRTY_MB} MiB) against cold`,
      rounds,
      live: { idle: summary(idleMoves), busy: summary(busyMoves) },
      cold,
      targets: 'none: informational (TCG on a shared machine, both hosts on loopback)',
    };
  } catch (err) {
    if (said.length) err.message += `\nThe API code's last warnings:\n${said.join('\n')}`;
    throw err;
  } finally {
    await clean();
    pendingCleanup = null;
  }
}

async function stopMoves() {
  stopping = true;
  if (pendingCleanup) await pendingCleanup();
}

function movesSummary(row) {
  const { idle, busy } = row.live;
  return [
    `Moves (${row.rounds} round(s), medians): live idle downtime ${idle.downtimeMs} ms in ${idle.totalSeconds} s, ` +
      `live busy ${busy.downtimeMs} ms in ${busy.totalSeconds} s, cold down ${row.cold.downtimeSeconds} s ` +
      `(live idle downtime ${(idle.downtimeMs / 1000 / row.cold.downtimeSeconds).toFixed(3)} of cold); informational`,
  ];
}

module.exports = { movesScenario, movesSummary, stopMoves };

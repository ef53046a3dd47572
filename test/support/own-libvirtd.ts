import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemTmpdir } from './temp-folder';
import { waitForOrFail } from './wait-for';

const LIBVIRTD = '/usr/sbin/libvirtd';
/** The daemon runs as this unprivileged user, so its state (domains, sockets, pools) is its own. */
const NOBODY = 65534;

export interface OwnLibvirtd {
  /** Its temp dir, owned by the daemon's user (a storage pool can live under it). */
  dir: string;
  /** The daemon's socket, for a URI of our own or a tap in front of it. */
  socket: string;
  /** `qemu+unix:///session?socket=...`: what the API and virsh connect with. */
  uri(socket?: string): string;
  /** The daemon's pid, read from its pid file. */
  pid(): number;
  /** Freezes the daemon (SIGSTOP) and lets it go on (SIGCONT) after `ms`. Resolves once it runs again. */
  stall(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A libvirtd of the test's own: a session daemon of `nobody` with its configuration,
 * socket, pid file and guests in a temp dir, so freezing it never touches the shared
 * qemu:///system daemon other suites use. QEMU's output goes to files (no virtlogd).
 */
export async function startOwnLibvirtd(): Promise<OwnLibvirtd> {
  // Not in the run's temp folder: QEMU's monitor socket, deep under this folder, must stay within 107 bytes.
  const dir = mkdtempSync(join(systemTmpdir(), 'own-libvirtd-'));
  const paths = { run: join(dir, 'run'), config: join(dir, 'config'), cache: join(dir, 'cache'), data: join(dir, 'data') };
  for (const path of Object.values(paths)) mkdirSync(path, { recursive: true });
  mkdirSync(join(paths.config, 'libvirt'), { recursive: true });
  writeFileSync(join(paths.config, 'libvirt', 'qemu.conf'), 'stdio_handler = "file"\n');
  // A host UUID of its own: libvirt refuses to migrate a machine to a daemon with its own (this machine's).
  writeFileSync(join(paths.config, 'libvirt', 'libvirtd.conf'), `log_outputs = "3:stderr"\nhost_uuid = "${randomUUID()}"\n`);
  for (const path of [dir, ...Object.values(paths), join(paths.config, 'libvirt')]) chownSync(path, NOBODY, NOBODY);
  for (const file of ['qemu.conf', 'libvirtd.conf']) chownSync(join(paths.config, 'libvirt', file), NOBODY, NOBODY);
  chmodSync(dir, 0o755);
  const pidFile = join(dir, 'libvirtd.pid');
  const socket = join(paths.run, 'libvirt', 'libvirt-sock');
  const child: ChildProcess = spawn(
    'setpriv',
    ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', LIBVIRTD, '--pid-file', pidFile],
    {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        XDG_RUNTIME_DIR: paths.run,
        XDG_CONFIG_HOME: paths.config,
        XDG_CACHE_HOME: paths.cache,
        XDG_DATA_HOME: paths.data,
        LC_ALL: 'C',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  child.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  try {
    await waitForOrFail(
      async () => existsSync(socket) && existsSync(pidFile),
      (ready) => ready || child.exitCode !== null,
      30_000,
      () => `libvirtd of the test did not start: ${log}`,
    );
    if (child.exitCode !== null) throw new Error(`libvirtd of the test exited with ${child.exitCode}: ${log}`);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const pid = () => Number(readFileSync(pidFile, 'utf8').trim());
  return {
    dir,
    socket,
    uri: (via = socket) => `qemu+unix:///session?socket=${via}`,
    pid,
    async stall(ms) {
      process.kill(pid(), 'SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, ms));
      process.kill(pid(), 'SIGCONT');
    },
    async stop() {
      try {
        process.kill(pid(), 'SIGCONT');
        process.kill(pid(), 'SIGTERM');
      } catch {
        // Gone already.
      }
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

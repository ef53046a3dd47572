import { execFile } from 'node:child_process';
import { Logger } from '@nestjs/common';
import { ComputeProviderError } from '../compute-provider';
import { diesWithParent, programMissing } from '../dies-with-parent';

/** What virsh says when it cannot reach libvirtd (refused, no socket, a dropped or silent connection). */
const UNREACHABLE = [
  /failed to connect to the hypervisor/i,
  /failed to connect socket/i,
  /unable to connect to server/i,
  /cannot recv data/i,
  /end of file while reading data/i,
  /connection reset by peer/i,
  /broken pipe/i,
  /no route to host/i,
  /keepalive timeout/i,
];
const DOMAIN_NOT_FOUND = /(domain not found|failed to get domain|no domain with matching)/i;
const VOLUME_NOT_FOUND = /(storage volume not found|no storage vol with matching|failed to get vol)/i;
const AGENT_UNAVAILABLE = /(guest agent is not (responding|connected|configured|available)|agent is not (connected|configured|available))/i;
const NOT_RUNNING = /domain is not running/i;
const NWFILTER_NOT_FOUND = /(network filter not found|no nwfilter with matching)/i;
const POOL_NOT_FOUND = /(storage pool not found|no storage pool with matching|failed to get pool)/i;
// The name listed (`vol-create-from`: "name ... already in use", `vol-create-as`: "exists already"), or only a file of the pool's directory.
const VOLUME_EXISTS =
  /(storage volume name '[^']*' already in use|storage volume '[^']*' exists already|volume target path '[^']*' already exists)/i;
const POOL_BUSY = /pool '[^']*' has asynchronous jobs running/i;

/** libvirt refuses to refresh a pool while one of its volumes is being copied (a rebuild's disk, a stopped VPS's snapshot). */
export const POOL_BUSY_CODE = 'pool_busy';

/** A volume was to be made under a name the pool already has. */
export const VOLUME_EXISTS_CODE = 'volume_exists';

/** `virsh metadata --uri` of a namespace the domain has no element of. */
export const NO_METADATA = 'no_metadata';

export interface VirshOptions {
  timeoutMs: number;
  /** Error codes that are an answer the caller expects (a volume already gone): logged at debug, not as a failure. */
  expected?: readonly string[];
  /** Arguments never written to a log line (a password): virsh's own words have them replaced. */
  secrets?: readonly string[];
}

/**
 * libvirt's own command-line client (Debian's libvirt-clients), run with an argument array (no
 * shell) and a timeout; its failures become ComputeProviderErrors the action runner understands.
 */
export class Virsh {
  private readonly logger = new Logger('Virsh');

  private readonly keepalive: string[];

  /** `keepaliveSeconds`: how long a silent libvirtd is waited for before virsh drops the connection. */
  constructor(
    keepaliveSeconds = 90,
    private readonly binary = 'virsh',
  ) {
    const interval = Math.min(5, keepaliveSeconds);
    this.keepalive = ['-k', String(interval), '-K', String(Math.max(1, Math.ceil(keepaliveSeconds / interval) - 1))];
  }

  run(uri: string, args: string[], { timeoutMs, expected = [], secrets = [] }: VirshOptions): Promise<string> {
    // -q: no decoration; keepalive lets virsh itself notice a peer that stopped answering.
    const argv = ['-q', ...this.keepalive, '-c', uri, ...args];
    return new Promise((resolve, reject) => {
      execFile(
        ...diesWithParent(this.binary, argv),
        { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, env: virshEnv() },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const error = virshError(err as NodeJS.ErrnoException & { killed?: boolean }, String(stderr), timeoutMs);
          // Never execFile's message: it repeats the whole command line, arguments and all.
          const words = String(stderr).trim().slice(0, 500) || exitOf(err as NodeJS.ErrnoException & { killed?: boolean; signal?: string });
          const said = `virsh ${args[0]} failed: ${secrets.reduce((line, secret) => (secret ? line.split(secret).join('***') : line), words)}`;
          // An answer, not a failure: the domain has no such metadata element, or the caller looked for something that may be gone.
          if (error.code === NO_METADATA || expected.includes(error.code)) this.logger.debug(said);
          else this.logger.warn(said);
          // libvirt's own reason goes with the error for operators (their command line, the action's error_detail); customers get `message`.
          reject(error.withOperatorDetail(said));
        },
      );
    });
  }
}

export function virshError(err: NodeJS.ErrnoException & { killed?: boolean }, stderr: string, timeoutMs: number): ComputeProviderError {
  if (programMissing(err, stderr)) {
    return new ComputeProviderError('hypervisor_unavailable', 'The libvirt client (virsh) is not installed on the API host.', true);
  }
  if (err.killed) return new ComputeProviderError('hypervisor_unavailable', `The hypervisor did not answer within ${timeoutMs} ms.`, true);
  const said = stderr
    .replace(/^error:\s*/gim, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (UNREACHABLE.some((pattern) => pattern.test(said))) {
    return new ComputeProviderError('hypervisor_unavailable', 'The hypervisor cannot be reached.', true);
  }
  if (/requested metadata element is not present/i.test(said)) {
    return new ComputeProviderError(NO_METADATA, 'The domain has no such metadata.');
  }
  if (AGENT_UNAVAILABLE.test(said)) {
    return new ComputeProviderError(
      'guest_agent_unavailable',
      'The QEMU guest agent does not answer; install qemu-guest-agent in the VPS.',
    );
  }
  if (VOLUME_EXISTS.test(said)) return new ComputeProviderError(VOLUME_EXISTS_CODE, 'The storage volume already exists.');
  if (POOL_BUSY.test(said)) return new ComputeProviderError(POOL_BUSY_CODE, 'The storage pool is busy copying a volume.', true);
  if (NOT_RUNNING.test(said)) return new ComputeProviderError('not_running', 'The machine is not running.');
  // Say which thing is missing: a missing image volume used to read as a missing machine.
  if (VOLUME_NOT_FOUND.test(said)) return new ComputeProviderError('not_found', missingVolume(quoted(said)));
  if (POOL_NOT_FOUND.test(said)) return new ComputeProviderError('not_found', 'The storage pool does not exist on the hypervisor.');
  if (NWFILTER_NOT_FOUND.test(said)) return new ComputeProviderError('not_found', 'The network filter does not exist on the hypervisor.');
  if (DOMAIN_NOT_FOUND.test(said)) return new ComputeProviderError('not_found', 'The machine does not exist on the hypervisor.');
  // The hypervisor's own words name hosts and paths customers need not see: they go to operators only (Virsh.run adds them).
  return new ComputeProviderError('hypervisor_error', 'The hypervisor refused the request.');
}

function exitOf(err: NodeJS.ErrnoException & { killed?: boolean; signal?: string }): string {
  if (err.killed) return 'killed after the timeout';
  if (programMissing(err, '')) return 'virsh is not installed';
  return err.signal ? `ended by ${err.signal}` : `exit status ${String(err.code)}`;
}

/** Our own volume names only (`img-<id>`, `svc-<id>-root.qcow2`): never a path of the host. */
function missingVolume(name: string | null): string {
  const ours = name && /^(img|svc)-[0-9a-f-]{36}[A-Za-z0-9.-]*$/.test(name) ? name : null;
  if (ours?.startsWith('img-')) return `The image's disk (volume ${ours}) does not exist in the hypervisor's storage pool.`;
  return ours
    ? `The volume ${ours} does not exist in the hypervisor's storage pool.`
    : "A volume does not exist in the hypervisor's storage pool.";
}

/** The last quoted name in virsh's words (`failed to get vol 'img-…'`), without a path. */
function quoted(said: string): string | null {
  const names = [...said.matchAll(/'([^']+)'/g)].map((m) => m[1].split('/').pop() ?? '');
  return names.length ? names[names.length - 1] : null;
}

/** The C locale keeps virsh's messages (matched above) in English; nothing else of ours leaks in. */
export function virshEnv(): NodeJS.ProcessEnv {
  const { PATH, HOME, SSH_AUTH_SOCK, XDG_RUNTIME_DIR } = process.env;
  return { PATH, HOME, SSH_AUTH_SOCK, XDG_RUNTIME_DIR, LC_ALL: 'C', LANG: 'C' };
}

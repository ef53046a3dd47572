import { execFile } from 'node:child_process';
import { Logger } from '@nestjs/common';
import { ComputeProviderError } from '../compute-provider';

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
const NOT_FOUND =
  /(domain not found|failed to get domain|no domain with matching|storage volume not found|no storage vol with matching|storage pool not found|no storage pool with matching)/i;

/** `virsh metadata --uri` of a namespace the domain has no element of. */
export const NO_METADATA = 'no_metadata';

export interface VirshOptions {
  timeoutMs: number;
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

  run(uri: string, args: string[], { timeoutMs }: VirshOptions): Promise<string> {
    // -q: no decoration; keepalive lets virsh itself notice a peer that stopped answering.
    const argv = ['-q', ...this.keepalive, '-c', uri, ...args];
    return new Promise((resolve, reject) => {
      execFile(
        this.binary,
        argv,
        { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, env: virshEnv() },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const error = virshError(err as NodeJS.ErrnoException & { killed?: boolean }, String(stderr), timeoutMs);
          // An answer, not a failure: the domain has no such metadata element.
          if (error.code !== NO_METADATA) {
            this.logger.warn(`virsh ${args[0]} failed: ${String(stderr).trim().slice(0, 500) || (err as Error).message}`);
          }
          reject(error);
        },
      );
    });
  }
}

export function virshError(err: NodeJS.ErrnoException & { killed?: boolean }, stderr: string, timeoutMs: number): ComputeProviderError {
  if (err.code === 'ENOENT') {
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
  if (NOT_FOUND.test(said)) return new ComputeProviderError('not_found', 'The machine does not exist on the hypervisor.');
  // The hypervisor's own words stay in our logs: they name hosts and paths customers need not see.
  return new ComputeProviderError('hypervisor_error', 'The hypervisor refused the request.');
}

/** The C locale keeps virsh's messages (matched above) in English; nothing else of ours leaks in. */
function virshEnv(): NodeJS.ProcessEnv {
  const { PATH, HOME, SSH_AUTH_SOCK, XDG_RUNTIME_DIR } = process.env;
  return { PATH, HOME, SSH_AUTH_SOCK, XDG_RUNTIME_DIR, LC_ALL: 'C', LANG: 'C' };
}

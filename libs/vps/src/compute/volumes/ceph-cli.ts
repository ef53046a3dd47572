import { execFile } from 'node:child_process';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Logger } from '@nestjs/common';
import type { VolumesConfig } from '@app/core';
import { ComputeProviderError } from '../compute-provider';
import { diesWithParent, programMissing } from '../dies-with-parent';

/**
 * How long librados tries a silent monitor, and an operation a silent OSD, before it gives up (its
 * defaults: 5 minutes, and forever).
 */
export const CEPH_TIMEOUTS = { mountSeconds: 10, opSeconds: 30 };

const UNREACHABLE = /couldn't connect to the cluster|connection timed out|\((110|111|113)\)|timed out/i;

export interface CephRunOptions {
  /** Error codes the caller expects (a volume already gone): logged at debug, not as a failure. */
  expected?: readonly string[];
  /** What the tool reads on its stdin (`-` as its file), opened when it starts. */
  input?: () => Readable;
  /**
   * Moves a disk's data (import, export, flatten): no time limit of our own, which would kill a big
   * disk's copy part way; librados's own timeouts still end one that a silent cluster stalls.
   */
  transfer?: boolean;
}

/** Writing to a tool that has already exited: its own exit status says what went wrong. */
const TOOL_GONE = new Set(['EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

/**
 * Ceph's own command-line tools (`rbd`, `ceph` from Debian's ceph-common), run with an argument
 * array and the cluster of the configuration only: no ceph.conf or keyring of the API host is read.
 * The cephx key goes through CEPH_ARGS (the environment), never the command line others can list.
 */
export class CephCli {
  private readonly logger = new Logger('CephCli');
  private readonly connection: string[];

  constructor(
    private readonly config: Pick<VolumesConfig, 'cephMonitors' | 'cephClientName' | 'cephClientKey'>,
    private readonly timeouts = CEPH_TIMEOUTS,
    private readonly binaries = { rbd: 'rbd', ceph: 'ceph' },
  ) {
    const monitors = config.cephMonitors.map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`));
    this.connection = [
      ...['--conf', '/dev/null', '--keyring', '/dev/null', '--mon-host', monitors.join(','), '--id', config.cephClientName],
      ...['--client-mount-timeout', String(timeouts.mountSeconds)],
      ...['--rados-mon-op-timeout', String(timeouts.opSeconds), '--rados-osd-op-timeout', String(timeouts.opSeconds)],
      ...(config.cephClientKey ? [] : ['--auth-client-required', 'none']),
    ];
  }

  rbd(args: string[], options: CephRunOptions = {}): Promise<string> {
    return this.run(this.binaries.rbd, args, options);
  }

  ceph(args: string[], options: CephRunOptions = {}): Promise<string> {
    return this.run(this.binaries.ceph, args, options);
  }

  /** `ceph` that could not read the monitor's command table (a busy monitor) sent nothing: asked again, twice. */
  private async run(binary: string, args: string[], options: CephRunOptions): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(binary, args, options);
      } catch (err) {
        if (!(err instanceof ComputeProviderError && err.message === NO_COMMAND_TABLE) || attempt === 3) throw err;
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    }
  }

  private async runOnce(binary: string, args: string[], options: CephRunOptions): Promise<string> {
    const { child, exited } = this.start(binary, args, options);
    if (!options.input) return exited;
    let unreadable: Error | undefined;
    const fed = pipeline(options.input(), child.stdin!).catch((err: NodeJS.ErrnoException) => {
      if (TOOL_GONE.has(String(err.code))) return;
      unreadable = err;
      child.kill('SIGKILL');
    });
    const [outcome] = await Promise.allSettled([exited, fed]);
    if (unreadable) {
      this.logger.warn(`${binary} ${args[0]}: its input could not be read: ${unreadable.message}`);
      throw new ComputeProviderError('volume_backend_error', 'The data for the Ceph cluster could not be read on the API host.');
    }
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  }

  private start(binary: string, args: string[], { expected = [], transfer = false }: CephRunOptions) {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, LC_ALL: 'C', ...this.keyArgs() };
    let child!: ReturnType<typeof execFile>;
    const exited = new Promise<string>((resolve, reject) => {
      child = execFile(
        ...diesWithParent(binary, [...this.connection, ...args]),
        // Killed only after librados's own timeouts, so its answer comes first.
        {
          timeout: transfer ? 0 : (this.timeouts.mountSeconds + 2 * this.timeouts.opSeconds) * 1000,
          killSignal: 'SIGKILL',
          maxBuffer: 16 * 1024 * 1024,
          env,
        },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const error = cephError(err as NodeJS.ErrnoException & { killed?: boolean }, String(stderr), binary);
          // librados repeats a key it cannot decode: never in a log line.
          const words = String(stderr)
            .split(this.config.cephClientKey || '\0')
            .join('***')
            .trim()
            .slice(-500);
          const said = `${binary} ${args[0]} failed: ${words || error.message}`;
          if (expected.includes(error.code)) this.logger.debug(said);
          else this.logger.warn(said);
          reject(error);
        },
      );
    });
    return { child, exited };
  }

  private keyArgs(): Record<string, string> {
    return this.config.cephClientKey ? { CEPH_ARGS: `--key ${this.config.cephClientKey}` } : {};
  }
}

/** `Error EPERM: problem getting command descriptions from mon.`: a busy monitor, not a refusal (nothing was asked yet). */
const NO_COMMAND_TABLE = 'The Ceph monitor did not answer the tool in time.';

/** The tools exit with the errno of what failed and say it as `(2) No such file or directory`. */
export function cephError(err: NodeJS.ErrnoException & { killed?: boolean }, stderr: string, binary: string): ComputeProviderError {
  if (programMissing(err, stderr)) {
    return new ComputeProviderError(
      'volume_backend_unavailable',
      `The ${binary} tool (Debian's ceph-common) is not installed on the API host.`,
      true,
    );
  }
  if (err.killed || UNREACHABLE.test(stderr)) {
    return new ComputeProviderError('volume_backend_unavailable', 'The Ceph cluster cannot be reached.', true);
  }
  if (/problem getting command descriptions/i.test(stderr)) {
    return new ComputeProviderError('volume_backend_unavailable', NO_COMMAND_TABLE, true);
  }
  // `rbd: ... (2) No such file or directory`, `[errno 2] RADOS object not found`, or the exit status (rbd's is the errno).
  const stated = /\((\d+)\) [A-Z]|\[errno (\d+)\]/.exec(stderr);
  const errno = Number(stated ? (stated[1] ?? stated[2]) : typeof err.code === 'number' ? err.code : NaN);
  if (/still has watchers/i.test(stderr) || errno === 16) {
    return new ComputeProviderError('volume_in_use', 'The volume is still open on a machine; detach it first.');
  }
  if (errno === 2)
    return new ComputeProviderError(
      'not_found',
      /opening pool/i.test(stderr) ? 'The RBD pool does not exist.' : 'The volume does not exist.',
    );
  if (errno === 17) return new ComputeProviderError('volume_exists', 'The volume already exists.');
  if (errno === 1 || errno === 13) return new ComputeProviderError('volume_backend_refused', 'The Ceph client may not do this (its caps).');
  // Ceph's own words stay in our logs: they name pools and monitors customers need not see.
  return new ComputeProviderError('volume_backend_error', 'The Ceph cluster refused the request.');
}

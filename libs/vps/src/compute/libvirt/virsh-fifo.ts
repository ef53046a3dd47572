import { ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { ComputeProviderError } from '../compute-provider';
import { diesWithParent } from '../dies-with-parent';
import { virshEnv, virshError } from './virsh';

const { O_RDONLY, O_WRONLY, O_NONBLOCK } = constants;

/**
 * virsh's output through a named pipe. `vol-download --file /dev/stdout` opens its standard output
 * by name, which a socket cannot be, and Node's child pipes are socket pairs: one end of a FIFO is
 * virsh's standard output, the other this process's, and the bytes pass no process in between.
 * (Not for input: virsh opens `/dev/stdin` when it gets to it, and the open of a FIFO's reading end
 * waits for a writer, so a short input written and closed before that would leave virsh waiting.)
 */
export class VirshFifo {
  private constructor(
    private readonly dir: string,
    private readonly path: string,
  ) {}

  static async make(): Promise<VirshFifo> {
    const dir = await mkdtemp(join(tmpdir(), 'virsh-'));
    const path = join(dir, 'data');
    try {
      await promisify(execFile)('mkfifo', ['-m', '600', path]);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw new ComputeProviderError('hypervisor_error', `No pipe for virsh could be made: ${(err as Error).message}`);
    }
    return new VirshFifo(dir, path);
  }

  /** What virsh writes to `--file /dev/stdout`; the stream ends once virsh has succeeded, and fails when it did not. */
  output(uri: string, args: string[]): Readable {
    // The reading end opens without waiting for a writer, then the writing end at once; only virsh keeps a writer.
    const reader = openSync(this.path, O_RDONLY | O_NONBLOCK);
    const writer = openSync(this.path, O_WRONLY);
    let child: ChildProcess;
    try {
      child = spawnVirsh(uri, [...args, '--file', '/dev/stdout'], ['ignore', writer, 'pipe']);
    } catch (err) {
      closeSync(reader);
      throw err;
    } finally {
      closeSync(writer);
    }
    const data = new Socket({ fd: reader, readable: true, writable: false });
    const out = new PassThrough();
    data.pipe(out, { end: false });
    const drained = new Promise<void>((resolve, reject) => data.once('end', resolve).once('error', reject));
    Promise.all([exitOf(child), drained]).then(
      () => out.end(),
      (err: Error) => out.destroy(err),
    );
    out.once('close', () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      data.destroy();
    });
    return out;
  }

  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}

function spawnVirsh(uri: string, args: string[], stdio: ['ignore', number, 'pipe']): ChildProcess {
  return spawn(...diesWithParent('virsh', ['-q', '-c', uri, ...args]), { env: virshEnv(), stdio });
}

/**
 * Resolves when virsh exited 0; rejects otherwise with the error its last words stand for (as Virsh's),
 * the words themselves for operators only.
 */
export function exitOf(child: ChildProcess): Promise<void> {
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-500)));
  return new Promise((resolve, reject) => {
    child.once('error', (err) => reject(new ComputeProviderError('hypervisor_unavailable', `virsh could not run: ${err.message}`, true)));
    child.once('close', (code, signal) => {
      if (code === 0) return resolve();
      const exit = Object.assign(new Error('virsh failed'), { code: String(code ?? signal), killed: false });
      reject(virshError(exit, said, 0).withOperatorDetail(`virsh failed (${signal ?? code}): ${said.trim()}`));
    });
  });
}

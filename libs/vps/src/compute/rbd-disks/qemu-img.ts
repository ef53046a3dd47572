import { spawn } from 'node:child_process';
import { ComputeProviderError } from '../compute-provider';
import { diesWithParent, programMissing } from '../dies-with-parent';

/**
 * A conversion runs as long as it moves: its size follows the disk's data, so no wall limit fits
 * every disk. qemu-img reports each percent it converts (`-p`); this long without one, it is stuck.
 */
export const CONVERT_STALL_MS = 30 * 60_000;
/** A map reads the file system's extents, not the data. */
const MAP_TIMEOUT_MS = 10 * 60_000;
/** The JSON of a map: far more than a fragmented disk's extents. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

export type DiskFileFormat = 'qcow2' | 'raw';

/** The code and message a run that fails answers with (a bad image, a bad backup, ...). */
type Failure = { code: string; message: string };

/** What a raw file holds, as `qemu-img map` reports it: data, or a hole (reads as zeros). */
export interface Extent {
  start: number;
  length: number;
}

/**
 * `qemu-img convert` on the API host between a disk file and another format, holes kept as holes
 * (`-S 4k`): how disks on Ceph (raw) meet images and backups (qcow2). `failure` is the code a file
 * it cannot read gives (a bad image, a bad backup).
 */
export async function convertDisk(
  from: { file: string; format: string },
  to: { file: string; format: DiskFileFormat },
  failure: Failure,
  qemuImg = 'qemu-img',
  stallMs = CONVERT_STALL_MS,
): Promise<void> {
  await runQemuImg(qemuImg, ['convert', '-p', '-f', from.format, '-O', to.format, '-S', '4k', from.file, to.file], failure, { stallMs });
}

/** The extents of a raw file that hold data, as the file system reports them (holes left out). */
export async function dataExtents(raw: string, qemuImg = 'qemu-img'): Promise<Extent[]> {
  const failure: Failure = { code: 'volume_backend_error', message: 'The disk file could not be read.' };
  const map = JSON.parse(
    await runQemuImg(qemuImg, ['map', '--output=json', '-f', 'raw', raw], failure, { wallMs: MAP_TIMEOUT_MS }),
  ) as (Extent & {
    data: boolean;
  })[];
  return map.filter((extent) => extent.data).map(({ start, length }) => ({ start, length }));
}

/** Killed after `wallMs` in all, or after `stallMs` with nothing on its standard output. */
interface Limits {
  wallMs?: number;
  stallMs?: number;
}

function runQemuImg(qemuImg: string, args: string[], failure: Failure, limits: Limits): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(...diesWithParent(qemuImg, args), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killedFor: string | undefined;
    const kill = (why: string) => {
      killedFor ??= why;
      child.kill('SIGKILL');
    };
    const wall = limits.wallMs ? setTimeout(() => kill(`no result after ${limits.wallMs! / 1000} s`), limits.wallMs) : undefined;
    let stall: NodeJS.Timeout | undefined;
    const armStall = () => {
      if (!limits.stallMs) return;
      clearTimeout(stall);
      stall = setTimeout(() => kill(`no progress for ${limits.stallMs! / 1000} s`), limits.stallMs);
    };
    armStall();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      armStall();
      stdout += chunk;
      if (stdout.length > MAX_OUTPUT_BYTES) kill('more output than a disk map has');
      if (limits.stallMs) stdout = stdout.slice(-200);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    const done = (err?: NodeJS.ErrnoException, code?: number | null) => {
      clearTimeout(wall);
      clearTimeout(stall);
      if (!err && code === 0 && !killedFor) return resolve(stdout);
      const missing = err ? programMissing(err, stderr) : programMissing({ code: code as unknown } as NodeJS.ErrnoException, stderr);
      const detail = killedFor ? `qemu-img ${args[0]} killed: ${killedFor}` : (err?.message ?? stderr).trim().slice(-500);
      reject(
        new ComputeProviderError(
          missing ? 'image_tool_missing' : failure.code,
          missing ? 'qemu-img (Debian qemu-utils) is needed on the API host for disks on Ceph.' : failure.message,
          false,
          detail,
        ),
      );
    };
    child.once('error', (err) => done(err));
    child.once('close', (code) => done(undefined, code));
  });
}

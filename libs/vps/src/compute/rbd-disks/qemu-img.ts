import { execFile } from 'node:child_process';
import { ComputeProviderError } from '../compute-provider';
import { diesWithParent, programMissing } from '../dies-with-parent';

const QEMU_IMG_TIMEOUT_MS = 30 * 60_000;
/** A map reads the file system's extents, not the data. */
const MAP_TIMEOUT_MS = 10 * 60_000;

export type DiskFileFormat = 'qcow2' | 'raw';

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
  failure: { code: string; message: string },
  qemuImg = 'qemu-img',
): Promise<void> {
  await runQemuImg(qemuImg, ['convert', '-f', from.format, '-O', to.format, '-S', '4k', from.file, to.file], failure);
}

/** The extents of a raw file that hold data, as the file system reports them (holes left out). */
export async function dataExtents(raw: string, qemuImg = 'qemu-img'): Promise<Extent[]> {
  const failure = { code: 'volume_backend_error', message: 'The disk file could not be read.' };
  const map = JSON.parse(await runQemuImg(qemuImg, ['map', '--output=json', '-f', 'raw', raw], failure, MAP_TIMEOUT_MS)) as (Extent & {
    data: boolean;
  })[];
  return map.filter((extent) => extent.data).map(({ start, length }) => ({ start, length }));
}

function runQemuImg(
  qemuImg: string,
  args: string[],
  failure: { code: string; message: string },
  timeoutMs = QEMU_IMG_TIMEOUT_MS,
): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      ...diesWithParent(qemuImg, args),
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const missing = programMissing(err as NodeJS.ErrnoException, String(stderr));
        reject(
          new ComputeProviderError(
            missing ? 'image_tool_missing' : failure.code,
            missing ? 'qemu-img (Debian qemu-utils) is needed on the API host for disks on Ceph.' : failure.message,
            false,
            String(stderr).trim().slice(-500),
          ),
        );
      },
    ),
  );
}

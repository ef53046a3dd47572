import { execFile } from 'node:child_process';
import { ComputeProviderError } from '../compute-provider';
import { diesWithParent, programMissing } from '../dies-with-parent';

const QEMU_IMG_TIMEOUT_MS = 30 * 60_000;

export type DiskFileFormat = 'qcow2' | 'raw';

/**
 * `qemu-img convert` on the API host between a disk file and another format, holes kept as holes
 * (`-S 4k`): how disks on Ceph (raw) meet images and backups (qcow2). `failure` is the code a file
 * it cannot read gives (a bad image, a bad backup).
 */
export function convertDisk(
  from: { file: string; format: string },
  to: { file: string; format: DiskFileFormat },
  failure: { code: string; message: string },
  qemuImg = 'qemu-img',
): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(
      ...diesWithParent(qemuImg, ['convert', '-f', from.format, '-O', to.format, '-S', '4k', from.file, to.file]),
      { timeout: QEMU_IMG_TIMEOUT_MS, killSignal: 'SIGKILL' },
      (err, _stdout, stderr) => {
        if (!err) return resolve();
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

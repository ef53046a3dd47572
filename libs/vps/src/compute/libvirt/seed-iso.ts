import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComputeProviderError } from '../compute-provider';
import type { SeedFiles } from './cloud-init-seed';

/**
 * Writes the seed as an ISO 9660 image labelled `cidata` (Debian's genisoimage, as cloud-localds
 * does) in a private temporary folder, hands its path and size to `use`, then removes it.
 */
export async function withSeedIso<T>(files: SeedFiles, use: (path: string, sizeBytes: number) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'seed-'));
  try {
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content, { mode: 0o600 });
    const iso = join(dir, 'seed.iso');
    await new Promise<void>((resolve, reject) =>
      execFile(
        'genisoimage',
        ['-quiet', '-output', iso, '-volid', 'cidata', '-joliet', '-rock', ...Object.keys(files).map((name) => join(dir, name))],
        { timeout: 20_000 },
        (err, _stdout, stderr) => {
          if (!err) return resolve();
          const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
          reject(
            new ComputeProviderError(
              'hypervisor_error',
              missing
                ? 'genisoimage is not installed on the API host.'
                : `The cloud-init seed could not be made: ${stderr.trim().slice(0, 200)}`,
            ),
          );
        },
      ),
    );
    return await use(iso, (await stat(iso)).size);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

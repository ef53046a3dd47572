import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** virsh reads XML from a file: a private one (it may hold a VNC password), removed afterwards. */
export async function withXmlFile<T>(xml: string, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'virsh-'));
  try {
    const file = join(dir, 'device.xml');
    await writeFile(file, xml, { mode: 0o600 });
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { uploadStream } from './disk-exports';
import { standInVirsh } from './stand-in-virsh.fixture';

/** A stand-in virsh on PATH: vol-upload refuses at once, as libvirt does for a volume that is gone, without reading its input. */
const FAKE_VIRSH = `#!/bin/sh
echo $$ > "$(dirname "$0")/pid"
echo "error: failed to get vol '$8'" >&2
echo "error: Storage volume not found: no storage vol with matching path '$8'" >&2
exit 1
`;

describe('uploadStream (virsh vol-upload from a stream)', () => {
  const virsh = standInVirsh(FAKE_VIRSH);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(() => process.on('unhandledRejection', onUnhandled));
  afterAll(() => process.off('unhandledRejection', onUnhandled));

  /** Until the stand-in virsh has exited (its pid gone), then one more turn of the event loop. */
  const virshGone = async () => {
    const pid = Number(readFileSync(join(virsh.dir(), 'pid'), 'utf8'));
    while (existsSync(`/proc/${pid}`)) await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it("fails with libvirt's reason when virsh refuses the volume, and leaves no rejection unhandled", async () => {
    const source = () => Promise.resolve(Readable.from([Buffer.alloc(16 * 1024 * 1024)]));
    const volume = 'svc-9e739124-48bb-4aec-b502-8762d0585d0c-root.qcow2';
    await expect(uploadStream('qemu:///system', 'default', volume, source)).rejects.toMatchObject({
      code: 'not_found',
      message: `The volume ${volume} does not exist in the hypervisor's storage pool.`,
    });
    await virshGone();
    expect(unhandled).toEqual([]);
  });
});

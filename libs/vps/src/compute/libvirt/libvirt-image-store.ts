import { isUuidText } from '@app/core';
import { ImageStore } from '../image-store';
import type { ImageFormat, PoolMade } from '../image-store';
import type { LibvirtParts } from './libvirt-parts';
import { IMAGE_VOLUME_PREFIX, imageVolume } from './volume-names';

/**
 * Images as volumes `img-<image id>` in LIBVIRT_STORAGE_POOL of every hypervisor: the configuration's
 * and every enabled host's; and, where some region's VPS disks are on Ceph, once in DISKS_RBD_POOL.
 */
export class LibvirtImageStore extends ImageStore {
  constructor(private readonly libvirt: Pick<LibvirtParts, 'connections' | 'pool' | 'rbdDisks'>) {
    super();
  }

  private hypervisors(): Promise<string[]> {
    return this.libvirt.connections.all(['enabled']);
  }

  async upload(imageId: string, file: string, facts: { format: ImageFormat; sizeBytes: number }): Promise<PoolMade[]> {
    const made: PoolMade[] = [];
    const { pool } = this.libvirt;
    for (const uri of await this.hypervisors()) {
      const path = await pool.ensure(uri);
      if (path) made.push({ hypervisor: uri, pool: pool.name, path });
      // upload starts from an empty volume itself.
      await pool.upload(uri, imageVolume(imageId), file, facts.format, facts.sizeBytes);
    }
    await this.libvirt.rbdDisks?.importImage(imageId, file, facts.format);
    return made;
  }

  async remove(imageId: string): Promise<void> {
    await this.libvirt.rbdDisks?.removeImage(imageId);
    for (const uri of await this.hypervisors()) await this.libvirt.pool.remove(uri, imageVolume(imageId));
  }

  async present(): Promise<string[]> {
    const ids = new Set<string>();
    for (const uri of await this.hypervisors()) {
      // A file a failed snapshot's backup job left is a volume only once the pool is read again;
      // a pool busy copying now is read on a later call.
      await this.libvirt.pool.refresh(uri, 0).catch(() => undefined);
      const names = await this.libvirt.pool.volumes(uri).catch(() => []);
      for (const name of names) {
        const id = name.slice(IMAGE_VOLUME_PREFIX.length);
        // Only an id that could be one: `img-` names of other making are not ours to look up.
        if (name.startsWith(IMAGE_VOLUME_PREFIX) && isUuidText(id)) ids.add(id);
      }
    }
    return [...ids];
  }
}

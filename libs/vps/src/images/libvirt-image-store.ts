import { AppConfig } from '@app/core';
import { ImageStore } from './image-store';
import type { ImageFormat } from './image.types';
import { StoragePool } from '../compute/libvirt/storage-pool';
import { imageVolume } from '../compute/libvirt/volume-names';
import { Virsh } from '../compute/libvirt/virsh';

/** Images as volumes `img-<image id>` in LIBVIRT_STORAGE_POOL of every configured hypervisor. */
export class LibvirtImageStore extends ImageStore {
  private readonly pool: StoragePool;

  constructor(
    private readonly config: AppConfig,
    virsh = new Virsh(config.libvirt.keepaliveSeconds),
  ) {
    super();
    this.pool = new StoragePool(virsh, config.libvirt.storagePool, config.libvirt.commandTimeoutSeconds * 1000);
  }

  async upload(imageId: string, file: string, facts: { format: ImageFormat; sizeBytes: number }): Promise<void> {
    // upload starts from an empty volume itself.
    for (const uri of this.uris()) await this.pool.upload(uri, imageVolume(imageId), file, facts.format, facts.sizeBytes);
  }

  async remove(imageId: string): Promise<void> {
    for (const uri of this.uris()) await this.pool.remove(uri, imageVolume(imageId));
  }

  private uris(): string[] {
    return [...new Set([this.config.libvirt.uri, ...Object.values(this.config.libvirt.regionUris)])];
  }
}

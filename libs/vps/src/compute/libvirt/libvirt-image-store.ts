import { AppConfig } from '@app/core';
import { ImageStore } from '../image-store';
import type { ImageFormat } from '../image-store';
import { StoragePool } from './storage-pool';
import { imageVolume } from './volume-names';
import { Virsh } from './virsh';
import { HostDirectory, LibvirtConnections } from './libvirt-connections';

/** Images as volumes `img-<image id>` in LIBVIRT_STORAGE_POOL of every hypervisor: the configuration's and every enabled host's. */
export class LibvirtImageStore extends ImageStore {
  private readonly pool: StoragePool;
  private readonly connections: LibvirtConnections;

  constructor(config: AppConfig, hosts: HostDirectory, virsh = new Virsh(config.libvirt.keepaliveSeconds)) {
    super();
    this.connections = new LibvirtConnections(config.libvirt, { uris: () => hosts.uris(['enabled']) });
    this.pool = new StoragePool(virsh, config.libvirt.storagePool, config.libvirt.commandTimeoutSeconds * 1000);
  }

  async upload(imageId: string, file: string, facts: { format: ImageFormat; sizeBytes: number }): Promise<void> {
    // upload starts from an empty volume itself.
    for (const uri of await this.connections.all()) await this.pool.upload(uri, imageVolume(imageId), file, facts.format, facts.sizeBytes);
  }

  async remove(imageId: string): Promise<void> {
    for (const uri of await this.connections.all()) await this.pool.remove(uri, imageVolume(imageId));
  }
}

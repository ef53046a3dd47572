import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { HostSetup } from '../host-setup';
import type { ImageFormat } from '../image-store';
import type { VolumeBackend } from '../volumes/volume-backend';
import type { LibvirtConnections } from './libvirt-connections';
import type { LibvirtParts } from './libvirt-parts';
import { StoragePool } from './storage-pool';
import { Virsh } from './virsh';
import { imageVolume } from './volume-names';

/** A host that answers, answers this fast (the health check runs every pass on every host). */
const ANSWER_TIMEOUT_MS = 10_000;
const COPY_TIMEOUT_MS = 60 * 60_000;

/**
 * A new host's hypervisor, with virsh: it answers, LIBVIRT_STORAGE_POOL is made there, it can
 * open volumes and VPS disks on Ceph (with cephx, the key as a libvirt secret), and each image
 * volume it lacks is copied from a hypervisor that has it (downloaded to the API
 * host, uploaded to the new one: hosts need not reach each other).
 */
export class LibvirtHostSetup extends HostSetup {
  private readonly logger = new Logger('HostSetup');
  private readonly pool: StoragePool;
  private readonly connections: LibvirtConnections;
  private readonly virsh: Virsh;
  private readonly rbdDisks: LibvirtParts['rbdDisks'];

  constructor(
    parts: Pick<LibvirtParts, 'pool' | 'connections' | 'virsh' | 'rbdDisks'>,
    private readonly volumes?: Pick<VolumeBackend, 'prepareHost'>,
  ) {
    super();
    ({ pool: this.pool, connections: this.connections, virsh: this.virsh, rbdDisks: this.rbdDisks } = parts);
  }

  async check(uri: string): Promise<void> {
    await this.virsh.run(uri, ['uri'], { timeoutMs: ANSWER_TIMEOUT_MS });
  }

  answers(uri: string): Promise<boolean> {
    return this.virsh.run(uri, ['uri'], { timeoutMs: ANSWER_TIMEOUT_MS, expected: ['hypervisor_unavailable'] }).then(
      () => true,
      () => false,
    );
  }

  async prepare(uri: string, images: { id: string; format: ImageFormat }[]): Promise<number> {
    await this.pool.ensure(uri);
    await this.volumes?.prepareHost(uri);
    await this.rbdDisks?.prepareHost(uri);
    const sources = (await this.connections.all()).filter((other) => other !== uri);
    let copied = 0;
    for (const image of images) {
      const volume = imageVolume(image.id);
      if (await this.pool.exists(uri, volume)) continue;
      const from = await this.holderOf(sources, volume);
      if (!from) {
        this.logger.warn(`Image ${image.id}: no hypervisor holds ${volume}; not copied to ${uri}`);
        continue;
      }
      await this.copy(from, uri, volume, image.format);
      copied++;
    }
    return copied;
  }

  private async holderOf(uris: string[], volume: string): Promise<string | null> {
    for (const uri of uris) if (await this.pool.exists(uri, volume).catch(() => false)) return uri;
    return null;
  }

  private async copy(from: string, to: string, volume: string, format: ImageFormat): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'host-image-'));
    try {
      const file = join(dir, volume);
      await this.virsh.run(from, ['vol-download', '--pool', this.pool.name, '--vol', volume, '--file', file], {
        timeoutMs: COPY_TIMEOUT_MS,
      });
      await this.pool.upload(to, volume, file, format, statSync(file).size);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

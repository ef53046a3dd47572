import { readFileSync } from 'node:fs';
import { AppConfig } from '@app/core';
import type { InstanceRef } from '../compute-provider';
import type { DeploymentIdentity } from '../deployment-identity';
import { EvacuatedMachine, MachineEvacuator } from '../machine-evacuator';
import { seedFiles } from './cloud-init-seed';
import { DeploymentMarks } from './deployment-marks';
import { uploadStream } from './disk-exports';
import { DEFAULT_DOMAIN_TEMPLATE, renderDomain, withDeploymentMark } from './domain-xml';
import { LibvirtConnections } from './libvirt-connections';
import { LibvirtInventory } from './libvirt-inventory';
import { withSeedIso } from './seed-iso';
import { StoragePool } from './storage-pool';
import { Virsh } from './virsh';
import { vncPassword } from './vnc-password';
import { imageVolume, rootVolumeOf, seedVolumeOf } from './volume-names';
import { withXmlFile } from './xml-file';

/**
 * An evacuated VPS's machine made again on its new host, with nothing asked of the old
 * one: the root volume is the backup streamed from the store (`vol-upload`, as a restore does) or a
 * new overlay on the image (as a rebuild does), the seed is written, and the domain is defined from
 * the template with this deployment's mark and started if the VPS ran. Whatever an earlier try
 * left on the new host (a domain of ours, its volumes) goes first: a half-written disk is worth nothing.
 */
export class LibvirtEvacuation extends MachineEvacuator {
  private readonly connections: LibvirtConnections;
  private readonly pool: StoragePool;
  private readonly marks: DeploymentMarks;
  private readonly inventory: LibvirtInventory;
  private readonly template: string;
  private readonly timeoutMs: number;

  constructor(
    private readonly config: AppConfig,
    identity: Pick<DeploymentIdentity, 'id'>,
    private readonly virsh = new Virsh(config.libvirt.keepaliveSeconds),
  ) {
    super();
    this.timeoutMs = config.libvirt.commandTimeoutSeconds * 1000;
    this.connections = new LibvirtConnections(config.libvirt);
    this.pool = new StoragePool(virsh, config.libvirt.storagePool, this.timeoutMs);
    this.marks = new DeploymentMarks(virsh, identity, this.timeoutMs);
    this.inventory = new LibvirtInventory(virsh, this.pool, this.marks, this.timeoutMs, this.timeoutMs);
    const { domainTemplate } = config.libvirt;
    this.template = domainTemplate ? readFileSync(domainTemplate, 'utf8') : DEFAULT_DOMAIN_TEMPLATE;
  }

  async recreate(instance: InstanceRef, machine: EvacuatedMachine): Promise<void> {
    const uri = this.connections.uriOf(instance);
    const name = instance.providerRef ?? `svc-${instance.serviceId}`;
    const root = rootVolumeOf(instance.serviceId);
    const seed = seedVolumeOf(instance.serviceId);
    // An earlier try's domain (never another deployment's: refused there) and volumes.
    await this.inventory.remove(uri, 'domain', name);
    await this.pool.remove(uri, root);
    await this.pool.remove(uri, seed);
    await this.pool.ensure(uri);
    const { disk } = machine;
    if (disk.from === 'backup') {
      await this.run(uri, [
        'vol-create-as',
        '--pool',
        this.pool.name,
        '--name',
        root,
        '--capacity',
        `${disk.sizeBytes}b`,
        '--format',
        'qcow2',
      ]);
      await uploadStream(uri, this.pool.name, root, disk.open);
      await this.pool.sizes(uri, root); // refreshes the pool: libvirt sees the restored disk's real size
    } else {
      await this.pool.createOverlay(uri, root, imageVolume(disk.boot.imageId), disk.boot.imageFormat, disk.boot.diskGb);
    }
    const seedOf = disk.from === 'backup' ? disk.seed : disk.boot.seed;
    await withSeedIso(seedFiles(seedOf, machine.network), (file, size) => this.pool.upload(uri, seed, file, 'raw', size));
    const xml = renderDomain(this.template, {
      name,
      serviceId: instance.serviceId,
      vcpus: machine.vcpus,
      memoryMb: machine.memoryMb,
      vncListen: this.connections.vncListenOf(instance),
      vncPassword: vncPassword(),
      pool: this.pool.name,
      rootVolume: root,
      seedVolume: seed,
      macAddress: machine.network?.mac ?? '',
      network: machine.network,
    });
    const marked = withDeploymentMark(xml, await this.marks.ours());
    await withXmlFile(marked, (file) => this.run(uri, ['define', file]));
    if (machine.powerOn) await this.run(uri, ['start', name]);
  }

  private run(uri: string, args: string[]): Promise<string> {
    return this.virsh.run(uri, args, { timeoutMs: this.timeoutMs });
  }
}

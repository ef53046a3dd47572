import type { AppConfig } from '@app/core';
import { GuestBoot, GuestNetwork, InstanceRef, NO_STEPS, StepReporter } from '../compute-provider';
import { seedFiles } from './cloud-init-seed';
import type { DeploymentMarks } from './deployment-marks';
import { DomainValues, renderDomain, withDeploymentMark } from './domain-xml';
import type { DomainInfo } from './domain-state';
import type { LibvirtDomains } from './libvirt-domains';
import type { NetworkFilters } from './libvirt-network-filters';
import { lookBeforeRetry } from './look-before-retry';
import { encodeTask } from './power-task';
import { withSeedIso } from './seed-iso';
import type { StoragePool } from './storage-pool';
import { imageVolume, rootVolumeOf, seedVolumeOf } from './volume-names';
import { vncPassword } from './vnc-password';
import { withVolumeDisks } from './volume-disks';
import { withXmlFile } from './xml-file';
import { rbdDiskXml } from './volume-disks';
import type { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';
import { rbdRescueOf, rbdRescueSeedOf, rbdRootOf, rbdSeedOf } from '../rbd-disks/rbd-disk-names';

/** The rescue system's disk (a copy-on-write disk on the rescue image) and seed; `svc-` names, so reconciliation finds leftovers. */
export const rescueVolumeOf = (serviceId: string): string => `svc-${serviceId}-rescue.qcow2`;
export const rescueSeedVolumeOf = (serviceId: string): string => `svc-${serviceId}-rescue-seed.iso`;

/**
 * The rescue domain: the template rendered with the rescue system's disk as vda and its
 * seed as the CD-ROM, and the VPS's own root disk added as vdb (after every other device, so the
 * BIOS boots vda; nothing mounts vdb). Disks on Ceph (`values.rbdDisks`, the VPS's own) need the
 * rescue system's there too (`rescueOnCeph`).
 */
export function rescueDomainXml(template: string, values: DomainValues, rescueOnCeph: DomainValues['rbdDisks'] = null): string {
  const xml = renderDomain(template, {
    ...values,
    rootVolume: rescueOnCeph ? rbdRescueOf(values.serviceId) : rescueVolumeOf(values.serviceId),
    seedVolume: rescueOnCeph ? rbdRescueSeedOf(values.serviceId) : rescueSeedVolumeOf(values.serviceId),
    rbdDisks: rescueOnCeph,
  });
  const vdb = `<target dev='vdb' bus='virtio'/>`;
  const own = values.rbdDisks
    ? rbdDiskXml(values.rbdDisks.root, 'disk', vdb)
    : `<disk type='volume' device='disk'><driver name='qemu' type='qcow2'/>` +
      `<source pool='${xmlText(values.pool)}' volume='${xmlText(rootVolumeOf(values.serviceId))}'/>${vdb}</disk>`;
  return xml.replace(/(\s*)<\/devices>/, `$1  ${own}$1</devices>`);
}

const xmlText = (value: string): string =>
  value.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/**
 * Rescue and unrescue on libvirt, for LibvirtComputeProvider: the domain is powered off, defined
 * again (same UUID, size, network and volumes) with the rescue disks or its own, and started. Both end as a
 * start does (done once the domain runs). Unrescue removes the rescue disk and seed.
 */
export class LibvirtRescue {
  constructor(
    private readonly config: AppConfig,
    private readonly domains: LibvirtDomains,
    private readonly pool: StoragePool,
    private readonly marks: DeploymentMarks,
    private readonly filters: NetworkFilters,
    private readonly template: string,
    private readonly changeTimeoutMs: number,
    /** Where the VPS's disks are on Ceph; null: in its host's pool. */
    private readonly rbdOf: (instance: InstanceRef) => RbdGuestDisks | null = () => null,
    private readonly seedIso = withSeedIso,
  ) {}

  async rescue(instance: InstanceRef, boot: GuestBoot, network: GuestNetwork | null, steps: StepReporter = NO_STEPS): Promise<string> {
    const domain = await this.stopped(instance, () => steps(10, 'powering the server off'));
    await steps(30, 'making the rescue disk from the rescue image');
    const rbd = this.rbdOf(instance);
    if (rbd)
      await this.seedIso(seedFiles(boot.seed, network), (file) => rbd.createRescue(instance.serviceId, boot.imageId, boot.diskGb, file));
    else await this.rescueVolumes(instance, boot, network, steps);
    await steps(70, 'defining the server with the rescue disk');
    await this.define(instance, domain, network, true);
    await steps(80, 'starting the rescue system');
    await this.domains.startOnce(instance, domain.name);
    return encodeTask({ type: 'start', since: Date.now(), domainId: null });
  }

  async unrescue(instance: InstanceRef, network: GuestNetwork | null, steps: StepReporter = NO_STEPS): Promise<string> {
    const domain = await this.stopped(instance, () => steps(10, 'powering the rescue system off'));
    await steps(40, 'defining the server with its own disk again');
    await this.define(instance, domain, network, false);
    const uri = this.domains.uriOf(instance);
    await steps(60, 'removing the rescue disk');
    const rbd = this.rbdOf(instance);
    if (rbd) await rbd.removeRescue(instance.serviceId);
    await this.pool.remove(uri, rescueVolumeOf(instance.serviceId));
    await this.pool.remove(uri, rescueSeedVolumeOf(instance.serviceId));
    await steps(80, 'starting the server');
    await this.domains.startOnce(instance, domain.name);
    return encodeTask({ type: 'start', since: Date.now(), domainId: null });
  }

  private async rescueVolumes(instance: InstanceRef, boot: GuestBoot, network: GuestNetwork | null, steps: StepReporter): Promise<void> {
    const uri = this.domains.uriOf(instance);
    const disk = rescueVolumeOf(instance.serviceId);
    const seed = rescueSeedVolumeOf(instance.serviceId);
    await this.pool.remove(uri, disk);
    await this.pool.createOverlay(uri, disk, imageVolume(boot.imageId), boot.imageFormat, boot.diskGb);
    await steps(50, "writing the rescue system's cloud-init seed");
    await this.pool.remove(uri, seed);
    await this.seedIso(seedFiles(boot.seed, network), (file, size) => this.pool.upload(uri, seed, file, 'raw', size));
  }

  /** The domain, ours, powered off (as a hardware reset would: the rescue is for a guest that may not shut down cleanly). */
  private async stopped(instance: InstanceRef, poweringOff: () => Promise<void>): Promise<DomainInfo> {
    const domain = await this.domains.info(instance, this.changeTimeoutMs);
    await this.marks.refuseForeign(this.domains.uriOf(instance), domain.name);
    if (domain.id) {
      await poweringOff();
      await this.domains.powerOffOnce(instance, domain.name);
    }
    return domain;
  }

  private async define(instance: InstanceRef, domain: DomainInfo, network: GuestNetwork | null, rescue: boolean): Promise<void> {
    const id = instance.serviceId;
    const rbd = this.rbdOf(instance);
    const names = rbd
      ? { root: rbdRootOf(id), seed: rbdSeedOf(id), rescue: rbdRescueOf(id) }
      : { root: rootVolumeOf(id), seed: seedVolumeOf(id), rescue: rescueVolumeOf(id) };
    const values: DomainValues = {
      name: domain.name,
      serviceId: instance.serviceId,
      vcpus: domain.vcpus,
      memoryMb: Math.max(1, Math.round(domain.memoryKiB / 1024)),
      // The host's --vnc-listen, as every other definition of the domain has it.
      vncListen: this.domains.connections.vncListenOf(instance),
      vncPassword: vncPassword(),
      pool: this.config.libvirt.storagePool,
      rootVolume: names.root,
      seedVolume: names.seed,
      rbdDisks: rbd?.sourcesOf(id) ?? null,
      macAddress: network?.mac ?? '',
      network,
    };
    const rescueOnCeph = rbd ? { root: rbd.source(names.rescue), seed: rbd.source(rbdRescueSeedOf(id)) } : null;
    let xml = rescue ? rescueDomainXml(this.template, values, rescueOnCeph) : renderDomain(this.template, values);
    xml = withVolumeDisks(xml, await this.domains.run(instance, ['dumpxml', '--inactive', domain.name]));
    xml = xml.replace(/<\/name>/, `</name>\n  <uuid>${domain.uuid}</uuid>`);
    xml = withDeploymentMark(xml, await this.marks.ours());
    const disk = rescue ? names.rescue : names.root;
    await this.filters.beforeDefine(this.domains.uriOf(instance), instance.serviceId, xml);
    const wanted = (inactive: string) => inactive.includes(disk) && rescue === inactive.includes(names.rescue);
    await lookBeforeRetry(
      () => withXmlFile(xml, (file) => this.domains.run(instance, ['define', file])),
      async () => wanted(await this.domains.run(instance, ['dumpxml', '--inactive', domain.name])),
    );
  }
}

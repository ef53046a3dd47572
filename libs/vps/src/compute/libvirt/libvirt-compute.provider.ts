import type { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { AppConfig } from '@app/core';
import {
  ComputeProvider,
  ComputeProviderError,
  ConsoleTarget,
  GuestBoot,
  GuestNetwork,
  HypervisorInventory,
  InstanceRef,
  MachineMark,
  MachineRecord,
  MachineSpec,
  NO_STEPS,
  RestoredMachine,
  StepReporter,
  TaskStatus,
  DiskExport,
} from '../compute-provider';
import type { GuestFirewall } from '../guest-firewalls';
import { DeploymentMarks } from './deployment-marks';
import { renderDomain, withDeploymentMark } from './domain-xml';
import { rootVolumeOf, seedVolumeOf } from './volume-names';
import { StoragePool } from './storage-pool';
import { lookBeforeRetry } from './look-before-retry';
import { LibvirtInventory } from './libvirt-inventory';
import { writeGuestDisks } from './guest-disks';
import { DomainInfo, parseDomainList, powerStateOf } from './domain-state';
import { encodeTask, LibvirtPowerTasks } from './power-task';
import { decodeSnapshotTask, DiskSnapshots, encodeSnapshotTask, isSnapshotTask } from './disk-snapshots';
import { DiskExports } from './disk-exports';
import { Virsh } from './virsh';
import { LibvirtDomains } from './libvirt-domains';
import type { LibvirtParts } from './libvirt-parts';
import { openVncConsole } from './vnc-console';
import { vncPassword } from './vnc-password';
import { withXmlFile } from './xml-file';
import { setGuestRootPassword } from './guest-password';
import { LibvirtRescue } from './rescue-domain';
import { DefineDomain, LibvirtRestore } from './libvirt-restore';
import type { NetworkFilters } from './libvirt-network-filters';
import { filterBridgedInterface } from './filtered-interface';
import type { ActionType, PowerState } from '../../vps.types';
import type { VolumeSource } from '../volumes/volume-backend';
import { LibvirtVolumeAttachments } from './volume-attachments';
import { withVolumeDisks } from './volume-disks';
import type { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';
import { rbdRootOf, rbdSeedOf } from '../rbd-disks/rbd-disk-names';

/** Reads never keep a request waiting longer than this on the hypervisor. */
const READ_TIMEOUT_MS = 2_000;
const POLL_MS = 500;

/**
 * VPSes as libvirt domains named `svc-<service id>`, driven with virsh (docs/compute-provider.md).
 * Power actions are tasks followed by polling (power-task.ts). Every domain
 * it defines carries the deployment's mark; one marked by another deployment is never adopted,
 * rebuilt or removed from here.
 */
export class LibvirtComputeProvider extends ComputeProvider {
  override readonly observesExternalChanges = true;
  override readonly makesMachines = true;
  private readonly logger = new Logger('LibvirtComputeProvider');
  private readonly template: string;
  private readonly pool: StoragePool;
  private readonly changeTimeoutMs: number;
  private readonly inventories: LibvirtInventory;
  private readonly marks: DeploymentMarks;
  private readonly domains: LibvirtDomains;
  private readonly snapshots: DiskSnapshots;
  private readonly exports: DiskExports;
  private readonly rescues: LibvirtRescue;
  private readonly restores: LibvirtRestore;
  private readonly powerTasks: LibvirtPowerTasks;
  private readonly volumes: LibvirtVolumeAttachments;
  private readonly filters: NetworkFilters;

  private readonly config: AppConfig;
  private readonly virsh: Virsh;
  private readonly parts: LibvirtParts;

  constructor(parts: LibvirtParts) {
    super();
    this.parts = parts;
    const { config, virsh } = parts;
    this.config = config;
    this.virsh = virsh;
    this.changeTimeoutMs = parts.changeTimeoutMs;
    this.domains = parts.domains;
    this.pool = parts.pool;
    this.marks = parts.marks;
    this.filters = parts.filters;
    this.snapshots = new DiskSnapshots(this.domains, this.pool);
    this.powerTasks = new LibvirtPowerTasks(this.domains, config.computeStopTimeoutSeconds, this.changeTimeoutMs, READ_TIMEOUT_MS);
    const rbdOf = (instance: InstanceRef) => this.rbdOf(instance);
    this.exports = new DiskExports(
      this.domains,
      this.pool,
      this.snapshots,
      this.marks,
      this.changeTimeoutMs,
      config.libvirt.diskTransfer,
      rbdOf,
    );
    // Reconciliation holds its job lock (a database connection) while it lists: reads stay short.
    this.inventories = new LibvirtInventory(virsh, this.pool, this.marks, READ_TIMEOUT_MS, this.changeTimeoutMs);
    this.template = parts.template;
    this.rescues = new LibvirtRescue(config, this.domains, this.pool, this.marks, this.filters, this.template, this.changeTimeoutMs, rbdOf);
    const define: DefineDomain = (instance, domain) => this.define(instance, { ...domain, withDisks: true });
    this.restores = new LibvirtRestore(this.domains, this.pool, this.marks, define, this.changeTimeoutMs, rbdOf);
    this.volumes = new LibvirtVolumeAttachments(this.domains, this.marks, this.changeTimeoutMs);
  }

  /** Power actions and their tasks: power-task.ts; snapshots' tasks: disk-snapshots.ts. */
  powerAction(instance: InstanceRef, type: ActionType, _idempotencyKey: string, steps: StepReporter = NO_STEPS): Promise<string> {
    return this.powerTasks.begin(instance, type, steps);
  }

  taskStatus(instance: InstanceRef, taskId: string): Promise<TaskStatus> {
    if (isSnapshotTask(taskId)) return this.snapshots.status(instance, decodeSnapshotTask(taskId), this.rbdOf(instance));
    return this.powerTasks.status(instance, taskId);
  }

  async powerState(instance: InstanceRef): Promise<PowerState | null> {
    try {
      return powerStateOf((await this.domains.info(instance, READ_TIMEOUT_MS)).state);
    } catch {
      return null;
    }
  }

  /** One `virsh list --all` per hypervisor; one that does not answer is skipped. */
  override async powerStates(instances: InstanceRef[]): Promise<Map<string, PowerState>> {
    const states = new Map<string, PowerState>();
    for (const uri of new Set(instances.map((instance) => this.domains.uriOf(instance)))) {
      const domains = await this.virsh
        .run(uri, ['list', '--all'], { timeoutMs: READ_TIMEOUT_MS })
        .then(parseDomainList)
        .catch(() => new Map<string, PowerState>());
      for (const instance of instances) {
        const state = this.domains.uriOf(instance) === uri ? domains.get(this.domains.domainOf(instance)) : undefined;
        if (state) states.set(instance.serviceId, state);
      }
    }
    return states;
  }

  /** The firewalls as nwfilters (network-filters.ts); QEMU's user networking has no interface libvirt could filter. */
  override async applyFirewalls(instance: InstanceRef, network: GuestNetwork | null, firewalls: GuestFirewall[]): Promise<void> {
    if (network?.mode !== 'bridge') return;
    await this.filters.sync(this.domains.uriOf(instance), instance.serviceId, firewalls);
    await filterBridgedInterface(this.domains, this.marks, instance);
  }

  /** Every domain is reached through a lease: a bridge address or a forwarded SSH port. */
  override networkFor(lease: () => Promise<GuestNetwork>): Promise<GuestNetwork | null> {
    return lease();
  }

  openConsole(instance: InstanceRef): Promise<ConsoleTarget> {
    return openVncConsole(this.domains, instance, READ_TIMEOUT_MS * 2);
  }

  pollIntervalMs(): number {
    return POLL_MS;
  }

  /**
   * Safe to repeat (the provisioning job retries it after a lost answer or a crash): a domain that
   * is already defined is adopted (unless another deployment marked it), not defined again, and it
   * is started only if it is not running.
   * Nothing is removed on failure; the job does that when it gives up.
   */
  override async createMachine(instance: InstanceRef, spec: MachineSpec): Promise<MachineRecord> {
    const name = `svc-${instance.serviceId}`;
    const made = { ...instance, providerRef: name };
    if (await this.domains.exists(made, this.changeTimeoutMs)) await this.marks.refuseForeign(this.domains.uriOf(instance), name);
    else {
      if (spec.boot)
        await writeGuestDisks(
          this.pool,
          this.domains.uriOf(instance),
          instance.serviceId,
          spec.boot,
          spec.network ?? null,
          this.rbdOf(instance),
        );
      const values = { name, vcpus: spec.vcpus, memoryMb: spec.memoryMb, withDisks: !!spec.boot, network: spec.network ?? null };
      await lookBeforeRetry(
        () => this.define(made, values),
        () => this.domains.exists(made),
      );
    }
    if (spec.powerOn && powerStateOf((await this.domains.info(made, this.changeTimeoutMs)).state) !== 'running')
      await this.domains.startOnce(made, name);
    return { providerRef: name, powerState: spec.powerOn ? 'running' : 'stopped' };
  }

  override async machineExists(instance: InstanceRef): Promise<boolean | null> {
    return this.domains.exists(instance, READ_TIMEOUT_MS).catch(() => null);
  }

  /** Every hypervisor's domains and volumes, and the VPS disks on Ceph as the volumes of one more: `rbd:<pool>`. */
  override async inventory(): Promise<HypervisorInventory[]> {
    const listed = await this.inventories.of(await this.domains.connections.all());
    const rbd = this.parts.rbdDisks;
    if (!rbd) return listed;
    const images = await rbd.machineImages().catch((err: Error) => {
      this.logger.warn(`The VPS disks on Ceph are not listed in this pass: ${err.message}`);
      return null;
    });
    return images ? [...listed, { hypervisor: rbd.inventoryName, domains: new Map(), volumes: images }] : listed;
  }

  override hypervisorOf(instance: InstanceRef): string {
    return this.domains.uriOf(instance);
  }

  override removeOrphan(hypervisor: string, kind: 'domain' | 'volume', name: string): Promise<void> {
    const rbd = this.parts.rbdDisks;
    if (rbd && hypervisor === rbd.inventoryName && kind === 'volume') return rbd.removeMachineImage(name);
    return this.inventories.remove(hypervisor, kind, name);
  }

  override async machineMark(hypervisor: string, domain: string): Promise<MachineMark> {
    const mark = await this.marks.of(hypervisor, domain, READ_TIMEOUT_MS);
    return mark === null ? 'none' : mark === (await this.marks.ours()) ? 'ours' : 'foreign';
  }

  /**
   * Powers the domain off, makes the root disk again from the image and a new seed, defines the
   * domain again from the current template (same UUID, same size) and starts it.
   */
  override async rebuildMachine(
    instance: InstanceRef,
    boot: GuestBoot,
    network: GuestNetwork | null,
    _idempotencyKey?: string,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    const domain = await this.domains.info(instance, this.changeTimeoutMs);
    await this.marks.refuseForeign(this.domains.uriOf(instance), domain.name);
    if (domain.id) {
      await steps(10, 'powering the server off');
      await this.domains.powerOffOnce(instance, domain.name);
    }
    await steps(20, 'writing the disk from the image and the cloud-init seed');
    await writeGuestDisks(this.pool, this.domains.uriOf(instance), instance.serviceId, boot, network, this.rbdOf(instance));
    const values = {
      name: domain.name,
      uuid: domain.uuid,
      vcpus: domain.vcpus,
      memoryMb: Math.max(1, Math.round(domain.memoryKiB / 1024)),
      withDisks: true,
      network,
    };
    await steps(70, 'defining the server from the template');
    await lookBeforeRetry(
      () => this.define(instance, values),
      async () => (await this.domains.run(instance, ['dumpxml', '--inactive', domain.name])).includes(this.rootDiskName(instance)),
    );
    await steps(80, 'starting the server');
    await this.domains.startOnce(instance, domain.name);
    return encodeTask({ type: 'rebuild', since: Date.now(), domainId: null });
  }

  /** A running domain is copied live (backup job), a stopped one by libvirt's volume copy; one on Ceph by an RBD snapshot; the image is standalone. */
  override async snapshotMachine(instance: InstanceRef, imageId: string, _key?: string, steps: StepReporter = NO_STEPS): Promise<string> {
    const domain = await this.domains.info(instance, this.changeTimeoutMs);
    await this.marks.refuseForeign(this.domains.uriOf(instance), domain.name);
    return encodeSnapshotTask(await this.snapshots.begin(instance, domain, imageId, steps, this.rbdOf(instance)));
  }

  /** Backups: disk-exports.ts; restores: libvirt-restore.ts. */
  override async exportDisk(instance: InstanceRef, exportId: string): Promise<DiskExport> {
    return this.exports.export(instance, exportId);
  }
  override releaseExport(instance: InstanceRef, exportId: string): Promise<void> {
    return this.exports.release(instance, exportId);
  }
  override restoreMachine(
    instance: InstanceRef,
    open: () => Promise<Readable>,
    sizeBytes: number,
    _idempotencyKey?: string,
    machine?: RestoredMachine,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    return this.restores.restore(instance, open, sizeBytes, machine, steps);
  }

  /** Root password and rescue: guest-password.ts (the QEMU guest agent) and rescue-domain.ts. */
  override setRootPassword(instance: InstanceRef, password: string): Promise<void> {
    return setGuestRootPassword(this.virsh, this.domains, this.marks, instance, password);
  }

  override rescueMachine(
    instance: InstanceRef,
    rescue: GuestBoot,
    network: GuestNetwork | null,
    _key?: string,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    return this.rescues.rescue(instance, rescue, network, steps);
  }

  override unrescueMachine(
    instance: InstanceRef,
    network: GuestNetwork | null,
    _key?: string,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    return this.rescues.unrescue(instance, network, steps);
  }

  /** Volumes: volume-attachments.ts. */
  override attachVolume(instance: InstanceRef, volumeId: string, source: VolumeSource): Promise<void> {
    return this.volumes.attach(instance, volumeId, source);
  }
  override detachVolume(instance: InstanceRef, volumeId: string): Promise<void> {
    return this.volumes.detach(instance, volumeId);
  }
  override resizeVolume(instance: InstanceRef, volumeId: string, sizeBytes: number): Promise<void> {
    return this.volumes.resize(instance, volumeId, sizeBytes);
  }

  override async adoptMachine(instance: InstanceRef, providerRef: string): Promise<MachineRecord> {
    const domain = await this.domains.info({ ...instance, providerRef }, this.changeTimeoutMs);
    await this.marks.refuseForeign(this.domains.uriOf(instance), domain.name);
    const state = powerStateOf(domain.state);
    return { providerRef: domain.name, powerState: state === 'stopping' ? 'running' : state };
  }

  override async destroyMachine(instance: InstanceRef): Promise<void> {
    let domain: DomainInfo | null = null;
    try {
      domain = await this.domains.info(instance, this.changeTimeoutMs);
    } catch (err) {
      if (!(err instanceof ComputeProviderError && err.code === 'not_found')) throw err;
    }
    const uri = this.domains.uriOf(instance);
    // A service of a database copied from another deployment, say: that deployment's machine and disks stay.
    const foreign = domain ? await this.marks.foreignMark(uri, domain.name) : null;
    if (foreign) return this.logger.warn(`The machine ${domain?.name} was defined by another deployment (${foreign}): left in place`);
    if (domain?.id) await this.domains.powerOffOnce(instance, domain.name);
    if (domain) {
      const name = domain.name;
      await lookBeforeRetry(
        () => this.domains.run(instance, ['undefine', name, '--managed-save', '--snapshots-metadata']),
        async () => !(await this.domains.exists(instance)),
      );
    }
    await this.pool.remove(uri, rootVolumeOf(instance.serviceId));
    await this.pool.remove(uri, seedVolumeOf(instance.serviceId));
    await this.rbdOf(instance)?.removeMachine(instance.serviceId);
    await this.filters.remove(uri, instance.serviceId);
    this.logger.log(`Domain ${domain?.name ?? this.domains.domainOf(instance)} and its volumes removed`);
  }

  private async define(
    instance: InstanceRef,
    d: { name: string; uuid?: string; vcpus: number; memoryMb: number; withDisks: boolean; network: GuestNetwork | null },
  ): Promise<void> {
    const rbd = d.withDisks ? this.rbdOf(instance) : null;
    const id = instance.serviceId;
    let xml = renderDomain(this.template, {
      name: d.name,
      serviceId: instance.serviceId,
      vcpus: d.vcpus,
      memoryMb: d.memoryMb,
      vncListen: this.domains.connections.vncListenOf(instance),
      vncPassword: vncPassword(),
      pool: this.config.libvirt.storagePool,
      rootVolume: d.withDisks ? this.rootDiskName(instance) : '',
      seedVolume: d.withDisks ? (rbd ? rbdSeedOf(id) : seedVolumeOf(id)) : '',
      rbdDisks: rbd?.sourcesOf(id) ?? null,
      macAddress: d.network?.mac ?? '',
      network: d.network,
    });
    // Defining an existing domain again needs its UUID (libvirt would otherwise refuse the name), and keeps its volumes.
    if (d.uuid) {
      xml = withVolumeDisks(xml, await this.domains.run(instance, ['dumpxml', '--inactive', d.name]));
      xml = xml.replace(/<\/name>/, `</name>\n  <uuid>${d.uuid}</uuid>`);
    }
    xml = withDeploymentMark(xml, await this.marks.ours());
    await this.filters.beforeDefine(this.domains.uriOf(instance), instance.serviceId, xml);
    await withXmlFile(xml, (file) => this.domains.run(instance, ['define', file]));
  }

  /** The VPS's disks on Ceph, where its region's are (DISK_BACKEND rbd); null: in its host's pool. */
  private rbdOf(instance: InstanceRef): RbdGuestDisks | null {
    return this.parts.rbdDisksIn(instance.region);
  }

  private rootDiskName(instance: InstanceRef): string {
    return this.rbdOf(instance) ? rbdRootOf(instance.serviceId) : rootVolumeOf(instance.serviceId);
  }
}

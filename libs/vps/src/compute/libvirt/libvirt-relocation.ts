import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComputeProviderError, InstanceRef } from '../compute-provider';
import type { HostTarget } from '../../hosts/host.entity';
import { LiveMoved, MachinePlace, MachineRelocator, RecreatedMachine, RelocationTarget } from '../machine-relocator';
import { seedFiles } from './cloud-init-seed';
import type { DeploymentMarks } from './deployment-marks';
import { uploadStream } from './disk-exports';
import { powerStateOf } from './domain-state';
import { DomainValues, renderDomain, withDeploymentMark } from './domain-xml';
import type { LibvirtConnections } from './libvirt-connections';
import { LibvirtInventory } from './libvirt-inventory';
import { migrateLive } from './live-migration';
import type { NetworkFilters } from './libvirt-network-filters';
import type { LibvirtParts } from './libvirt-parts';
import { withVpsFilter } from './network-filters';
import { withSeedIso } from './seed-iso';
import type { StoragePool } from './storage-pool';
import type { Virsh } from './virsh';
import { vncPassword } from './vnc-password';
import { imageVolume, rootVolumeOf, seedVolumeOf } from './volume-names';
import { localVolumeDisks } from './volume-disks';
import { withXmlFile } from './xml-file';
import type { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';
import { rbdRootOf, rbdSeedOf } from '../rbd-disks/rbd-disk-names';

const COPY_TIMEOUT_MS = 60 * 60_000;
const isNotFound = (err: unknown) => err instanceof ComputeProviderError && err.code === 'not_found';

/**
 * A relocation between two libvirt hosts that need not reach each other.
 * `copy` (cold): the root disk is flattened on the old host (no backing file: the image's path may
 * differ on the new one), downloaded to the API host and uploaded with the seed; the domain's
 * inactive XML (its UUID, deployment mark and VNC password kept) is defined on the new host and
 * looked at; only then is it undefined on the old one and its disks deleted. Never on none.
 * `recreate` (the old host is dead): the root volume is the backup streamed from the store
 * (`vol-upload`, as a restore does) or a new overlay on the image (as a rebuild does), the seed is
 * written, and the domain is defined from the template with this deployment's mark and started if
 * the VPS ran. What an earlier try left on the new host goes first: a half-written disk is worth nothing.
 * `migrate` (live): the hosts reach each other; the running domain goes over with libvirt's live
 * migration, its root disk copied into a volume made first on the new host, its seed uploaded there.
 * Disks on Ceph (DISK_BACKEND=rbd) are opened wherever the domain runs: a move copies nothing, and
 * `recreate` starts the machine from the disk it had, once the dead host's QEMU is fenced off.
 */
export class LibvirtRelocation extends MachineRelocator {
  private readonly connections: LibvirtConnections;
  private readonly pool: StoragePool;
  private readonly marks: DeploymentMarks;
  private readonly filters: NetworkFilters;
  private readonly inventory: LibvirtInventory;
  private readonly template: string;
  private readonly timeoutMs: number;
  private readonly virsh: Virsh;

  constructor(private readonly parts: LibvirtParts) {
    super();
    ({ virsh: this.virsh, connections: this.connections, pool: this.pool, marks: this.marks, template: this.template } = parts);
    this.filters = parts.filters;
    this.timeoutMs = parts.changeTimeoutMs;
    this.inventory = new LibvirtInventory(this.virsh, this.pool, this.marks, this.timeoutMs, this.timeoutMs);
  }

  async copy(instance: InstanceRef, to: RelocationTarget): Promise<void> {
    const rbd = this.parts.rbdDisksIn(instance.region);
    const from = this.connections.uriOf(instance);
    if (from === to.uri) return;
    const name = nameOf(instance);
    const onOld = await this.state(from, name);
    if (onOld !== null) {
      await this.marks.refuseForeign(from, name);
      if (powerStateOf(onOld) !== 'stopped') throw new ComputeProviderError('invalid_state', 'The machine is not stopped.');
      // Not defined on the new host yet: a volume there is an earlier try's, maybe cut short, so it is copied again.
      if ((await this.state(to.uri, name)) === null) {
        const old = await this.run(from, ['dumpxml', '--inactive', '--security-info', name]);
        // RBD volumes are in the cluster and follow the definition; a volume of the old host's pool would be left behind.
        const local = localVolumeDisks(old);
        if (local.length)
          throw new ComputeProviderError(
            'invalid_state',
            `The machine has ${local.length} volume(s) in its host's own pool (VOLUME_BACKEND=local); detach them before moving it.`,
          );
        const xml = withVpsFilter(withSshPort(old, to.sshPort), instance.serviceId);
        // Disks on Ceph are opened where the domain runs: nothing is copied.
        if (!rbd) {
          await this.pool.ensure(to.uri);
          await this.copyVolume(from, to.uri, rootVolumeOf(instance.serviceId), 'qcow2');
          await this.copyVolume(from, to.uri, seedVolumeOf(instance.serviceId), 'raw');
        }
        await this.filters.beforeDefine(to.uri, instance.serviceId, xml);
        await withXmlFile(xml, (file) => this.run(to.uri, ['define', file]));
      }
    }
    // Looked at on the new host before anything goes from the old one (a resumed copy starts here).
    if ((await this.state(to.uri, name)) === null) throw new ComputeProviderError('not_found', 'The machine is on neither host.');
    if (onOld !== null) await this.undefine(from, name);
    await this.removeVolumes(from, instance.serviceId);
    await this.filters.remove(from, instance.serviceId);
  }

  async migrate(instance: InstanceRef, to: RelocationTarget, timeoutMs: number): Promise<LiveMoved> {
    const shared = this.sharedDisks(instance.region);
    const from = this.connections.uriOf(instance);
    const name = nameOf(instance);
    if (from === to.uri) return { downtimeMs: null };
    const [onOld, onNew] = [await this.state(from, name), await this.state(to.uri, name)];
    if (onOld === null) {
      if (onNew === null) throw new ComputeProviderError('not_found', 'The machine is on neither host.');
      // Moved before the process that moved it died: only the old host's disks are left to remove.
      await this.forget(from, instance.serviceId);
      return { downtimeMs: null };
    }
    await this.marks.refuseForeign(from, name);
    if (onNew !== null) throw new ComputeProviderError('invalid_state', 'A live move of the machine is under way.', true);
    if (powerStateOf(onOld) !== 'running')
      throw new ComputeProviderError('invalid_state', 'The machine is not running: it is not moved live.');
    const xml = await this.run(from, ['dumpxml', '--migratable', '--security-info', name]);
    const local = localVolumeDisks(xml);
    if (local.length)
      throw new ComputeProviderError(
        'invalid_state',
        `The machine has ${local.length} volume(s) in its host's own pool (VOLUME_BACKEND=local).`,
      );
    if (!shared) await this.prepareLocalDisks(from, to.uri, instance.serviceId);
    const moved = withVpsFilter(withSshPort(xml, to.sshPort), instance.serviceId);
    await this.filters.beforeDefine(to.uri, instance.serviceId, moved);
    try {
      const done = await migrateLive(this.virsh, from, to.uri, name, moved, timeoutMs, !shared);
      await this.forget(from, instance.serviceId);
      return done;
    } catch (err) {
      // Still on the old host (libvirt's own rollback): what was made for it on the new one goes.
      if ((await this.state(from, name)) !== null && (await this.state(to.uri, name)) === null)
        await this.forget(to.uri, instance.serviceId);
      throw err;
    }
  }

  async locate(instance: InstanceRef, to: HostTarget): Promise<MachinePlace> {
    const name = nameOf(instance);
    const from = this.connections.uriOf(instance);
    return { onOld: (await this.state(from, name)) !== null, onNew: from !== to.uri && (await this.state(to.uri, name)) !== null };
  }

  /** Only while the old host answers that it has the machine: the copy on the new host is never the last one. */
  async discard(instance: InstanceRef, to: HostTarget): Promise<void> {
    const name = nameOf(instance);
    const from = this.connections.uriOf(instance);
    if (from === to.uri || (await this.state(from, name)) === null) return;
    if ((await this.state(to.uri, name)) !== null) await this.undefine(to.uri, name);
    await this.removeVolumes(to.uri, instance.serviceId);
    await this.filters.remove(to.uri, instance.serviceId);
  }

  sharedDisks(region: string | null | undefined): boolean {
    return this.parts.rbdDisksIn(region) !== null;
  }

  async recreate(instance: InstanceRef, machine: RecreatedMachine): Promise<void> {
    const uri = this.connections.uriOf(instance);
    const name = nameOf(instance);
    const rbd = this.parts.rbdDisksIn(instance.region);
    const { disk } = machine;
    if (rbd ? disk.from !== 'disk' : disk.from === 'disk')
      throw new ComputeProviderError(
        'invalid_state',
        `The VPS's disks are ${rbd ? '' : 'not '}on Ceph: it cannot be made again from ${disk.from === 'disk' ? 'its current disk' : `its ${disk.from}`}.`,
      );
    // An earlier try's domain (never another deployment's: refused there) and volumes.
    await this.inventory.remove(uri, 'domain', name);
    if (rbd) return this.restartFromCeph(rbd, instance, machine);
    const root = rootVolumeOf(instance.serviceId);
    const seed = seedVolumeOf(instance.serviceId);
    await this.removeVolumes(uri, instance.serviceId);
    await this.pool.ensure(uri);
    if (disk.from === 'backup') {
      const size = `${disk.sizeBytes}b`;
      await this.run(uri, ['vol-create-as', '--pool', this.pool.name, '--name', root, '--capacity', size, '--format', 'qcow2']);
      await uploadStream(uri, this.pool.name, root, disk.open);
      await this.pool.sizes(uri, root); // refreshes the pool: libvirt sees the restored disk's real size
    } else if (disk.from === 'image') {
      await this.pool.createOverlay(uri, root, imageVolume(disk.boot.imageId), disk.boot.imageFormat, disk.boot.diskGb);
    }
    const seedOf = disk.from === 'backup' ? disk.seed : disk.from === 'image' ? disk.boot.seed : null;
    if (seedOf) await withSeedIso(seedFiles(seedOf, machine.network), (file, size) => this.pool.upload(uri, seed, file, 'raw', size));
    await this.defineMade(instance, machine, { rootVolume: root, seedVolume: seed, rbdDisks: null });
  }

  /**
   * A host's copy the VPS no longer runs from (an evacuated host that answers again): its domain is
   * destroyed and undefined, its volumes and filter removed; disks on Ceph are the VPS's own and stay.
   */
  async removeStale(instance: InstanceRef): Promise<void> {
    const uri = this.connections.uriOf(instance);
    await this.inventory.remove(uri, 'domain', nameOf(instance));
    await this.forget(uri, instance.serviceId);
  }

  /**
   * Nothing lost: the machine runs on the new host from the disk and seed it had, once whatever still
   * has them open (the dead host's QEMU, maybe running on) is fenced off by the cluster.
   */
  private async restartFromCeph(rbd: RbdGuestDisks, instance: InstanceRef, machine: RecreatedMachine): Promise<void> {
    const id = instance.serviceId;
    const [root, seed] = [rbdRootOf(id), rbdSeedOf(id)];
    if (!(await rbd.exists(root))) throw new ComputeProviderError('not_found', `The VPS's disk ${root} is not on Ceph.`);
    await rbd.fence(id);
    await rbd.prepareHost(this.connections.uriOf(instance));
    await this.defineMade(instance, machine, {
      rootVolume: root,
      seedVolume: seed,
      rbdDisks: rbd.sourcesOf(id),
    });
  }

  /** The domain of a machine made again, from the template with this deployment's mark, started if the VPS ran. */
  private async defineMade(
    instance: InstanceRef,
    machine: RecreatedMachine,
    disks: Pick<DomainValues, 'rootVolume' | 'seedVolume' | 'rbdDisks'>,
  ): Promise<void> {
    const uri = this.connections.uriOf(instance);
    const name = nameOf(instance);
    const xml = renderDomain(this.template, {
      name,
      serviceId: instance.serviceId,
      vcpus: machine.vcpus,
      memoryMb: machine.memoryMb,
      vncListen: this.connections.vncListenOf(instance),
      vncPassword: vncPassword(),
      pool: this.pool.name,
      ...disks,
      macAddress: machine.network?.mac ?? '',
      network: machine.network,
    });
    const marked = withDeploymentMark(xml, await this.marks.ours());
    await this.filters.beforeDefine(uri, instance.serviceId, marked);
    await withXmlFile(marked, (file) => this.run(uri, ['define', file]));
    if (machine.powerOn) await this.run(uri, ['start', name]);
  }

  /** The new host's empty root volume of the old one's size (the migration fills it) and the seed, copied. */
  private async prepareLocalDisks(from: string, to: string, serviceId: string): Promise<void> {
    const root = rootVolumeOf(serviceId);
    const { capacity } = await this.pool.sizes(from, root);
    await this.pool.ensure(to);
    await this.pool.remove(to, root);
    await this.run(to, ['vol-create-as', '--pool', this.pool.name, '--name', root, '--capacity', `${capacity}b`, '--format', 'qcow2']);
    await this.copyVolume(from, to, seedVolumeOf(serviceId), 'raw');
  }

  /** A host the machine is not on: its disks and its filter go. */
  private async forget(uri: string, serviceId: string): Promise<void> {
    await this.removeVolumes(uri, serviceId);
    await this.filters.remove(uri, serviceId);
  }

  private async removeVolumes(uri: string, serviceId: string): Promise<void> {
    await this.pool.remove(uri, rootVolumeOf(serviceId));
    await this.pool.remove(uri, seedVolumeOf(serviceId));
  }

  private async undefine(uri: string, name: string): Promise<void> {
    await this.run(uri, ['undefine', name, '--managed-save', '--snapshots-metadata']).catch((err: unknown) =>
      isNotFound(err) ? '' : Promise.reject(err),
    );
  }

  private async state(uri: string, name: string): Promise<string | null> {
    return this.run(uri, ['domstate', name]).catch((err: unknown) => (isNotFound(err) ? null : Promise.reject(err)));
  }

  /** A volume of the old host's pool, copied afresh (a copy an earlier try left on the new host may be partial). */
  private async copyVolume(from: string, to: string, volume: string, format: 'qcow2' | 'raw'): Promise<void> {
    if (!(await this.pool.exists(from, volume))) return;
    await this.pool.remove(to, volume);
    const flat = `${volume}.move`;
    const dir = mkdtempSync(join(tmpdir(), 'vps-move-'));
    try {
      const source = format === 'qcow2' ? flat : volume;
      if (format === 'qcow2') await this.pool.copyFlat(from, volume, flat);
      const file = join(dir, volume);
      await this.virsh.run(from, ['vol-download', '--pool', this.pool.name, '--vol', source, '--file', file], {
        timeoutMs: COPY_TIMEOUT_MS,
      });
      await this.pool.upload(to, volume, file, format, statSync(file).size);
    } finally {
      if (format === 'qcow2') await this.pool.remove(from, flat);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** `not_found` is expected (a domain looked for), not logged as a failure. */
  private run(uri: string, args: string[]): Promise<string> {
    return this.virsh.run(uri, args, { timeoutMs: this.timeoutMs, expected: ['not_found'] });
  }
}

function nameOf(instance: InstanceRef): string {
  return instance.providerRef ?? `svc-${instance.serviceId}`;
}

/** The domain's forwarded SSH port set to the one leased on the new host (user networking), when it has one. */
export function withSshPort(xml: string, port: number | null | undefined): string {
  return port ? xml.replace(/(hostfwd=tcp:[^:'"]*:)\d+(-:22)/, `$1${port}$2`) : xml;
}

import type { Readable } from 'node:stream';
import type { GuestBoot, GuestNetwork, GuestSeed, InstanceRef } from './compute-provider';
import type { HostTarget } from '../hosts/host.entity';

/** The new host, and the SSH port forwarded there when it differs from the old host's (user networking). */
export type RelocationTarget = HostTarget & { sshPort?: number | null };

/** Where a VPS's machine is, as both hosts answer (a host that cannot answer throws). */
export interface MachinePlace {
  onOld: boolean;
  onNew: boolean;
}

/**
 * Where a machine made again gets its root disk: the disk it had, where that outlives its host (on
 * Ceph: nothing lost); else the VPS's latest backup, or its image (the customer's data is lost).
 */
export type RecreatedDisk =
  | { from: 'disk' }
  | { from: 'backup'; open: () => Promise<Readable>; sizeBytes: number; seed: GuestSeed }
  | { from: 'image'; boot: GuestBoot };

/** What a live move measured: the guest's pause at the switch-over; null where nothing measured it (a move a dead process began). */
export interface LiveMoved {
  downtimeMs: number | null;
}

/** What a VPS's machine is made again with on its new host. */
export interface RecreatedMachine {
  vcpus: number;
  memoryMb: number;
  network: GuestNetwork | null;
  powerOn: boolean;
  disk: RecreatedDisk;
}

/**
 * Puts a VPS's machine on another host (a relocation), in one of two ways. `copy`: a
 * stopped machine's disks copied to the new host's pool, the domain defined there and looked at,
 * and only then undefined and its disks deleted on the old one; each step looks before it acts, so
 * a copy cut short is run again to its end. `recreate`: the machine made again on the new host
 * without asking the old one (it is dead), from a backup or the image; each try starts from nothing
 * there. The simulator's machines are rows only (it reads a backup through, so one the store cannot give fails).
 */
export abstract class MachineRelocator {
  abstract copy(instance: InstanceRef, to: RelocationTarget): Promise<void>;
  /**
   * `live`: a running machine moved to the new host while it runs (its local disks copied along), the
   * old host's definition and disks removed after. One that fails, or runs past `timeoutMs` (aborted),
   * leaves the machine running on the old host; one already done (a resumed move) is not done again.
   */
  abstract migrate(instance: InstanceRef, to: RelocationTarget, timeoutMs: number): Promise<LiveMoved>;
  /** Where the machine is now (a rolled-back copy decides by it). */
  abstract locate(instance: InstanceRef, to: HostTarget): Promise<MachinePlace>;
  /** Removes the copy on the new host of a machine the old host verifiably still has (a rolled-back copy). */
  abstract discard(instance: InstanceRef, to: HostTarget): Promise<void>;
  /** Whether the region's VPS disks outlive their host (shared storage): a dead host's VPS is made again from its current disk. */
  abstract sharedDisks(region: string | null | undefined): boolean;
  /** `instance.host` is the new host. */
  abstract recreate(instance: InstanceRef, machine: RecreatedMachine): Promise<void>;
  /** The copy on a host the VPS no longer runs from (an evacuated host answering again): removed, never started; shared disks stay. */
  abstract removeStale(instance: InstanceRef): Promise<void>;
}

export class SimulatedMachineRelocator extends MachineRelocator {
  copy(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing runs to pause: no downtime is measured. */
  migrate(): Promise<LiveMoved> {
    return Promise.resolve({ downtimeMs: null });
  }

  /** A simulated machine moves with its record: until the record is settled it is where the record says. */
  locate(): Promise<MachinePlace> {
    return Promise.resolve({ onOld: true, onNew: false });
  }

  discard(): Promise<void> {
    return Promise.resolve();
  }

  sharedDisks(): boolean {
    return false;
  }

  removeStale(): Promise<void> {
    return Promise.resolve();
  }

  async recreate(_instance: InstanceRef, machine: RecreatedMachine): Promise<void> {
    if (machine.disk.from !== 'backup') return;
    const stream = await machine.disk.open();
    for await (const _chunk of stream as AsyncIterable<Buffer>) void _chunk;
  }
}

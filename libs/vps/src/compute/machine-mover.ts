import type { InstanceRef } from './compute-provider';
import type { HostTarget } from '../hosts/host.entity';

/** The new host, and the SSH port forwarded there when it differs from the old host's (user networking). */
export type MoveTarget = HostTarget & { sshPort?: number | null };

/** Where a VPS's machine is, as both hosts answer (a host that cannot answer throws). */
export interface MachinePlace {
  onOld: boolean;
  onNew: boolean;
}

/**
 * Moves a stopped VPS's machine to another host (`service:move`, `host:drain`): its
 * disks copied to the new host's pool, the domain defined there and looked at, and only then
 * undefined and its disks deleted on the old one. Each step looks before it acts, so a move that
 * failed half-way is run again to its end. The simulator's machines are rows only.
 */
export abstract class MachineMover {
  abstract move(instance: InstanceRef, to: MoveTarget): Promise<void>;
  /** Where the machine is now (a rolled-back move decides by it). */
  abstract locate(instance: InstanceRef, to: HostTarget): Promise<MachinePlace>;
  /** Removes the copy on the new host of a machine the old host verifiably still has (a rolled-back move). */
  abstract discard(instance: InstanceRef, to: HostTarget): Promise<void>;
}

export class SimulatedMachineMover extends MachineMover {
  move(): Promise<void> {
    return Promise.resolve();
  }

  /** A simulated machine moves with its record: until the record is settled it is where the record says. */
  locate(): Promise<MachinePlace> {
    return Promise.resolve({ onOld: true, onNew: false });
  }

  discard(): Promise<void> {
    return Promise.resolve();
  }
}

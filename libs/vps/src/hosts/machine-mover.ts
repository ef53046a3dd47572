import type { InstanceRef } from '../compute/compute-provider';
import type { HostTarget } from './host.entity';

/**
 * Moves a stopped VPS's machine to another host (issue 40, `service:move`): its disks copied to
 * the new host's pool, the domain defined there and looked at, and only then undefined and its
 * disks deleted on the old one. Each step looks before it acts, so a move that failed half-way is
 * run again to its end. The simulator's machines are rows only.
 */
export abstract class MachineMover {
  abstract move(instance: InstanceRef, to: HostTarget): Promise<void>;
}

export class SimulatedMachineMover extends MachineMover {
  move(): Promise<void> {
    return Promise.resolve();
  }
}

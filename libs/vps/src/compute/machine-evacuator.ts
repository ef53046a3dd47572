import type { Readable } from 'node:stream';
import type { GuestBoot, GuestNetwork, GuestSeed, InstanceRef } from './compute-provider';

/** Where the new root disk comes from: the VPS's latest backup, or its image (the customer's data is lost). */
export type EvacuatedDisk =
  { from: 'backup'; open: () => Promise<Readable>; sizeBytes: number; seed: GuestSeed } | { from: 'image'; boot: GuestBoot };

/** What a VPS's machine is made again with on its new host. */
export interface EvacuatedMachine {
  vcpus: number;
  memoryMb: number;
  network: GuestNetwork | null;
  powerOn: boolean;
  disk: EvacuatedDisk;
}

/**
 * Makes an evacuated VPS's machine again on a new host (`host:evacuate`), without the old
 * host, which does not answer: a root disk from the backup store or from the image, a seed, the
 * domain, started if it ran. Each try starts again from nothing on the new host (what an earlier
 * try left there is removed first), so a run that died half-way is run again. The simulator's
 * machines are rows only: it reads the backup through, so a backup the store cannot give fails.
 */
export abstract class MachineEvacuator {
  /** `instance.host` is the new host. */
  abstract recreate(instance: InstanceRef, machine: EvacuatedMachine): Promise<void>;
}

export class SimulatedMachineEvacuator extends MachineEvacuator {
  async recreate(_instance: InstanceRef, machine: EvacuatedMachine): Promise<void> {
    if (machine.disk.from !== 'backup') return;
    const stream = await machine.disk.open();
    for await (const _chunk of stream as AsyncIterable<Buffer>) void _chunk;
  }
}

/** Why one VPS was not evacuated (the run goes on with the next; the next run tries it again). */
export class EvacuationFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Problem } from '@app/core';
import type { VpsSpecs } from '@app/products';
import type { PowerState } from '../service.types';
import { computeProblem } from './compute/compute-problem';
import { ComputeProvider, GuestNetwork, MachineRecord } from './compute/compute-provider';
import { bootOf, GuestPlan, hostnameOf } from './guest-setup';
import { NetworkAllocator } from './network/network-allocator';
import { VpsInstancesRepository } from './vps-instances.repository';

export interface MachinePlan {
  region: string;
  specs: VpsSpecs;
  powerState: PowerState;
  /** Adopt this existing machine instead of creating one (a single VPS). */
  providerRef?: string;
  /** Install this image (a disk and a cloud-init seed); without it the machine has no disk. */
  guest?: GuestPlan;
}

/** A made machine and the network it was given. */
export interface MadeMachine extends MachineRecord {
  network: GuestNetwork | null;
}

/**
 * The hypervisor side of provisioning (the operator's command): one machine per new VPS, made or
 * adopted before the VPS rows are written, so no row lock is held while the hypervisor works. If
 * one fails, the machines made so far are removed again; `discard` undoes a batch whose rows could
 * not be written. An adopted machine is never removed.
 */
@Injectable()
export class MachineProvisioning {
  private readonly logger = new Logger('MachineProvisioning');

  constructor(
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
    private readonly network: NetworkAllocator,
  ) {}

  /** `names`: the services' names (their guests' host names), in the order of `serviceIds`. */
  async create(manager: EntityManager, serviceIds: string[], names: string[], plan: MachinePlan): Promise<Map<string, MadeMachine>> {
    const records = new Map<string, MadeMachine>();
    try {
      for (const [i, serviceId] of serviceIds.entries()) {
        const ref = { serviceId, providerRef: null, region: plan.region };
        // The lease is a row of this transaction: a failed batch gives it back with the rest.
        const network =
          !plan.providerRef && this.compute.leasesNetwork ? await this.network.allocate(manager, serviceId, plan.region) : null;
        const record = plan.providerRef
          ? await this.compute.adoptMachine(ref, plan.providerRef)
          : await this.compute.createMachine(ref, {
              vcpus: plan.specs.vcpus,
              memoryMb: plan.specs.memoryMb,
              powerOn: plan.powerState === 'running',
              boot: plan.guest && bootOf(plan.guest, `iid-${serviceId}`, hostnameOf(names[i], serviceId)),
              network: network ?? undefined,
            });
        if (!record) continue;
        if (plan.providerRef) await this.refuseTaken(manager, record.providerRef);
        records.set(serviceId, { ...record, network });
      }
      return records;
    } catch (err) {
      await this.discard(records, plan);
      throw computeProblem(err, `No machine ${plan.providerRef ?? ''} on the hypervisor.`);
    }
  }

  async discard(records: Map<string, MadeMachine>, plan: MachinePlan): Promise<void> {
    if (plan.providerRef) return;
    for (const [serviceId, { providerRef }] of records) {
      await this.compute.destroyMachine({ serviceId, providerRef, region: plan.region }).catch((err: Error) => {
        this.logger.error(`Machine ${providerRef} of a VPS that was not recorded could not be removed: ${err.message}`);
      });
    }
  }

  private async refuseTaken(manager: EntityManager, providerRef: string): Promise<void> {
    if (await this.instances.machineTaken(manager, providerRef))
      throw Problem.conflict('invalid_state', `Machine ${providerRef} already belongs to a service.`);
  }
}

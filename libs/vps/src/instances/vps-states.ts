import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Problem } from '@app/core';
import { ServiceOwnership, ServiceState } from '@app/services';
import { MachineState, VpsInstancesRepository } from './vps-instances.repository';

/** A service with its VPS record; the machine's fields are null for a service that has none (not a VPS). */
export type VpsState = ServiceState & { [K in keyof MachineState]: MachineState[K] | null };

/** Whether the service is a VPS: the one place that asks. */
export function isVps<S extends { powerState: unknown }>(
  state: S | null | undefined,
): state is S & { powerState: NonNullable<S['powerState']> } {
  return !!state?.powerState;
}

/** The 404 for the instance routes of a service that is not a VPS. */
export function notAVps(): Problem {
  return new Problem(404, 'not_found', 'This service has no instance (it is not a VPS).');
}

/** The service row (from the services area) with the VPS's own record, read after it. */
@Injectable()
export class VpsStates {
  constructor(
    private readonly ownership: ServiceOwnership,
    private readonly instances: VpsInstancesRepository,
  ) {}

  /** The caller's service, without a lock. */
  async forAccount(accountId: string, serviceId: string): Promise<VpsState | null> {
    return this.with(await this.ownership.stateFor(accountId, serviceId), undefined);
  }

  /** The caller's service under its row lock. */
  async lockFor(manager: EntityManager, accountId: string, serviceId: string): Promise<VpsState | null> {
    return this.with(await this.ownership.lockFor(manager, accountId, serviceId), manager);
  }

  /** The same without an ownership check (background work). */
  async lockById(manager: EntityManager, serviceId: string): Promise<VpsState | null> {
    return this.with(await this.ownership.lockById(manager, serviceId), manager);
  }

  private async with(service: ServiceState | null, manager: EntityManager | undefined): Promise<VpsState | null> {
    if (!service) return null;
    const machine = await this.instances.machineOf(service.id, manager);
    return {
      ...service,
      powerState: machine?.powerState ?? null,
      region: machine?.region ?? null,
      providerRef: machine?.providerRef ?? null,
      host: machine?.host ?? null,
    };
  }
}

import { Injectable } from '@nestjs/common';
import { Problem } from '@app/core';
import type { ServiceStatus } from '@app/services';
import { InstanceRef, instanceRef } from './compute/compute-provider';
import { PowerStateSync } from './power-state-sync';
import { VpsStates } from './vps-states';
import type { PowerState } from './vps.types';

export interface OwnedVps {
  serviceId: string;
  status: ServiceStatus;
  powerState: PowerState;
  ref: InstanceRef;
}

/** The instance routes' caller's VPS, or a 404 (unknown, another account's, or a service without an instance alike). */
@Injectable()
export class VpsOwnership {
  constructor(
    private readonly states: VpsStates,
    private readonly sync: PowerStateSync,
  ) {}

  static noInstance(): Problem {
    return new Problem(404, 'not_found', 'This service has no instance (it is not a VPS).');
  }

  /** The caller's VPS, its power state as the hypervisor reports it now. */
  async requireVps(accountId: string, serviceId: string): Promise<OwnedVps> {
    const service = await this.states.forAccount(accountId, serviceId);
    if (!service) throw Problem.notFound('Service');
    if (!service.powerState) throw VpsOwnership.noInstance();
    return {
      serviceId,
      status: service.status,
      powerState: (await this.sync.refresh(service)) ?? service.powerState,
      ref: { ...instanceRef(serviceId, service), name: service.name },
    };
  }
}

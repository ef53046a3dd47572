import { Injectable } from '@nestjs/common';
import { Problem } from '@app/core';
import type { ServiceStatus } from '@app/services';
import { InstanceRef, instanceRef } from '../compute/compute-provider';
import { PowerStateSync } from './power-state/power-state-sync';
import { isVps, notAVps, VpsStates } from './vps-states';
import type { PowerState } from '../vps.types';

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

  /** The caller's VPS, its power state as the hypervisor reports it now. */
  async requireVps(accountId: string, serviceId: string): Promise<OwnedVps> {
    const service = await this.states.forAccount(accountId, serviceId);
    if (!service) throw Problem.notFound('Service');
    if (!isVps(service)) throw notAVps();
    return {
      serviceId,
      status: service.status,
      powerState: (await this.sync.refresh(service)) ?? service.powerState,
      ref: { ...instanceRef(serviceId, service), name: service.name },
    };
  }
}

import { Injectable } from '@nestjs/common';
import { Problem } from '@app/core';
import { ServicesRepository } from '../services.repository';
import type { PowerState, ServiceStatus } from '../service.types';
import { InstanceRef, instanceRef } from './compute/compute-provider';
import { PowerStateSync } from './power-state-sync';

export interface OwnedVps {
  serviceId: string;
  status: ServiceStatus;
  powerState: PowerState;
  ref: InstanceRef;
}

/** The caller's VPS or a 404: unknown, another account's, or a service without an instance alike. */
@Injectable()
export class VpsLookup {
  constructor(
    private readonly services: ServicesRepository,
    private readonly sync: PowerStateSync,
  ) {}

  static noInstance(): Problem {
    return new Problem(404, 'not_found', 'This service has no instance (it is not a VPS).');
  }

  async require(accountId: string, serviceId: string): Promise<OwnedVps> {
    const service = await this.services.findStateForAccount(accountId, serviceId);
    if (!service) throw Problem.notFound('Service');
    if (service.type !== 'vps' || !service.powerState) throw VpsLookup.noInstance();
    return {
      serviceId,
      status: service.status,
      powerState: (await this.sync.refresh(service)) ?? service.powerState,
      ref: { ...instanceRef(serviceId, service), name: service.name },
    };
  }
}

import { Injectable } from '@nestjs/common';
import { Problem } from '@app/core';
import type { PowerState, ServiceStatus } from './service.types';
import { ServicesRepository } from './services.repository';
import { InstanceRef, instanceRef, PowerStateSync } from '@app/vps';

export interface OwnedVps {
  serviceId: string;
  status: ServiceStatus;
  powerState: PowerState;
  ref: InstanceRef;
}

/**
 * Whose a service is, the one place that answers it: for other areas (a ticket's serviceId) whether
 * an account owns it, for the instance routes the caller's VPS or a 404 (unknown, another account's,
 * or a service without an instance alike).
 */
@Injectable()
export class ServiceOwnership {
  constructor(
    private readonly services: ServicesRepository,
    private readonly sync: PowerStateSync,
  ) {}

  static noInstance(): Problem {
    return new Problem(404, 'not_found', 'This service has no instance (it is not a VPS).');
  }

  isOwnedBy(accountId: string, serviceId: string): Promise<boolean> {
    return this.services.existsForAccount(accountId, serviceId);
  }

  /** The caller's VPS, its power state as the hypervisor reports it now. */
  async requireVps(accountId: string, serviceId: string): Promise<OwnedVps> {
    const service = await this.services.findStateForAccount(accountId, serviceId);
    if (!service) throw Problem.notFound('Service');
    if (service.type !== 'vps' || !service.powerState) throw ServiceOwnership.noInstance();
    return {
      serviceId,
      status: service.status,
      powerState: (await this.sync.refresh(service)) ?? service.powerState,
      ref: { ...instanceRef(serviceId, service), name: service.name },
    };
  }
}

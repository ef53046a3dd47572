import { Injectable } from '@nestjs/common';
import { ActivityLog, Actor, domainEvent, Problem, TransactionRunner } from '@app/core';
import { nextDueDate } from './billing';
import { computeProblem, ComputeProvider, instanceRef, NetworkAllocator, VpsInstancesRepository } from '@app/vps';
import { ServiceResponse } from './dto/service.response';
import { ObjectStorageLifecycle } from '@app/object-storage';
import { ServicesRepository } from './services.repository';
import { ServiceStatus } from './service.types';
import type { ServiceStatusChangedEvent } from './services.events';

/**
 * Billing status changes made by the operator (the customer API has none); each emits
 * service.status_changed. Terminating a VPS powers its machine off and deletes it, with its disks,
 * and gives its address or port back.
 */
@Injectable()
export class ServiceStatusService {
  constructor(
    private readonly services: ServicesRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly tx: TransactionRunner,
    private readonly compute: ComputeProvider,
    private readonly activity: ActivityLog,
    private readonly network: NetworkAllocator,
    private readonly storage: ObjectStorageLifecycle,
  ) {}

  /** `actor`: who to record (the operator's command passes the staff member). */
  async setStatus(serviceId: string, status: ServiceStatus, reason: string | null = null, actor?: Actor): Promise<ServiceResponse> {
    const response = await this.change(serviceId, status, reason, actor);
    if (response.objectStorage) response.objectStorage.state = (await this.storage.settle([serviceId])).get(serviceId)!;
    return response;
  }

  private change(serviceId: string, status: ServiceStatus, reason: string | null, actor?: Actor): Promise<ServiceResponse> {
    return this.tx.run(async (m, publish) => {
      const service = await this.services.lockById(m, serviceId);
      if (!service) throw Problem.notFound('Service');
      if (service.status !== status) {
        const current = await this.services.billingOf(m, serviceId);
        if (status === 'terminated' && service.type === 'vps') {
          // The machine goes first: if the hypervisor refuses, the service keeps its status.
          await this.compute.destroyMachine(instanceRef(serviceId, service)).catch((err: unknown) => Promise.reject(computeProblem(err)));
          await this.instances.retire(m, serviceId);
          // Its address or forwarded port goes back to the pool with the machine.
          await this.network.release(m, serviceId);
        }
        const now = new Date();
        // Finished services owe nothing; a service (re)activated without a future due date renews from now.
        let due = current.nextDueDate;
        if (status === 'cancelled' || status === 'terminated') due = null;
        else if (status === 'active' && (!due || due <= now)) due = nextDueDate(current.billingCycle, 'active', current.createdAt, now);
        await this.services.setStatus(m, serviceId, status, due);
        if (service.type === 'object_storage') await this.storage.statusChanged(m, serviceId, status);
        publish(
          domainEvent<ServiceStatusChangedEvent>('service.status_changed', service.accountId, {
            serviceId,
            serviceName: service.name,
            from: service.status,
            to: status,
            reason,
          }),
        );
        await this.activity.record(m, {
          accountId: service.accountId,
          action: 'service.status_change',
          entity: { type: 'service', id: serviceId },
          actor,
          details: { from: service.status, to: status, reason },
        });
      }
      return ServiceResponse.fromRow((await this.services.findOneIn(m, service.accountId, serviceId))!);
    });
  }
}

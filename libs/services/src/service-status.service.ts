import { Injectable } from '@nestjs/common';
import { ActivityLog, Actor, domainEvent, Problem, TransactionRunner } from '@app/core';
import { nextDueDate } from './billing';
import { ServiceResponse } from './dto/service.response';
import { ServiceKinds } from './kinds/service-kinds';
import { ServicesRepository } from './services.repository';
import { ServiceStatus } from './service.types';
import type { ServiceStatusChangedEvent } from './services.events';

/**
 * Billing status changes made by the operator (the customer API has none); each emits
 * service.status_changed. The service's kind follows in the same transaction: terminating a VPS
 * deletes its machine first (if the hypervisor refuses, the service keeps its status). Terminated
 * is final.
 */
@Injectable()
export class ServiceStatusService {
  constructor(
    private readonly services: ServicesRepository,
    private readonly kinds: ServiceKinds,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
  ) {}

  /** `actor`: who to record (the operator's command passes the staff member). */
  async setStatus(serviceId: string, status: ServiceStatus, reason: string | null = null, actor?: Actor): Promise<ServiceResponse> {
    const response = await this.change(serviceId, status, reason, actor);
    await this.kinds.of(response.type).statusSettled(response);
    return response;
  }

  private change(serviceId: string, status: ServiceStatus, reason: string | null, actor?: Actor): Promise<ServiceResponse> {
    return this.tx.run(async (m, publish) => {
      const service = await this.services.lockById(m, serviceId);
      if (!service) throw Problem.notFound('Service');
      // Terminated is final: its machine, address and storage keys are gone, and a
      // customer who pays again gets a new service rather than an old one with its old key brought back.
      if (service.status === 'terminated' && status !== 'terminated')
        throw Problem.conflict('invalid_state', 'The service is terminated, which is final; provision a new service instead.');
      const kind = this.kinds.of(service.type);
      if (service.status !== status) {
        const current = await this.services.billingOf(m, serviceId);
        if (status === 'terminated') await kind.terminate(m, service);
        const now = new Date();
        // Finished services owe nothing; a service (re)activated without a future due date renews from now.
        let due = current.nextDueDate;
        if (status === 'cancelled' || status === 'terminated') due = null;
        else if (status === 'active' && (!due || due <= now)) due = nextDueDate(current.billingCycle, 'active', current.createdAt, now);
        await this.services.setStatus(m, serviceId, status, due);
        await kind.statusChanged(m, serviceId, status);
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
      const row = (await this.services.findOneIn(m, service.accountId, serviceId))!;
      return ServiceResponse.fromRow(row, (await this.kinds.partsOf([row], m)).get(serviceId));
    });
  }
}

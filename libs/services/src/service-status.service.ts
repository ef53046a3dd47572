import { Injectable } from '@nestjs/common';
import { domainEvent, Problem, ServiceStatusChangedEvent, TransactionRunner } from '@app/core';
import { nextDueDate } from './billing';
import { ServiceResponse } from './dto/service.response';
import { ServicesRepository } from './services.repository';
import { ServiceStatus } from './service.types';

/** Billing status changes made by the operator (the customer API has none); each emits service.status_changed. */
@Injectable()
export class ServiceStatusService {
  constructor(
    private readonly services: ServicesRepository,
    private readonly tx: TransactionRunner,
  ) {}

  async setStatus(serviceId: string, status: ServiceStatus, reason: string | null = null): Promise<ServiceResponse> {
    return this.tx.run(async (m, publish) => {
      const service = await this.services.lockById(m, serviceId);
      if (!service) throw Problem.notFound('Service');
      if (service.status !== status) {
        const [current]: { billing_cycle: ServiceResponse['billingCycle']; created_at: Date; next_due_date: Date | null }[] = await m.query(
          `SELECT billing_cycle, created_at, next_due_date FROM services WHERE id = $1`,
          [serviceId],
        );
        const now = new Date();
        // Finished services owe nothing; a service (re)activated without a future due date renews from now.
        let due = current.next_due_date;
        if (status === 'cancelled' || status === 'terminated') due = null;
        else if (status === 'active' && (!due || due <= now)) due = nextDueDate(current.billing_cycle, 'active', current.created_at, now);
        await m.query(`UPDATE services SET status = $2, next_due_date = $3, updated_at = now() WHERE id = $1`, [serviceId, status, due]);
        publish(
          domainEvent<ServiceStatusChangedEvent>('service.status_changed', service.accountId, {
            serviceId,
            serviceName: service.name,
            from: service.status,
            to: status,
            reason,
          }),
        );
      }
      return ServiceResponse.fromRow((await this.services.findOneForAccount(service.accountId, serviceId, m))!);
    });
  }
}

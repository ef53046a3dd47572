import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ServicesRepository, ServiceState } from './services.repository';

/**
 * Whose a service is, the one place that answers it: for other areas (a ticket's serviceId) whether
 * an account owns it; for a kind's sub-resources the service row, owner-scoped and, in a
 * transaction, locked (unknown and another account's alike are null).
 */
@Injectable()
export class ServiceOwnership {
  constructor(private readonly services: ServicesRepository) {}

  isOwnedBy(accountId: string, serviceId: string): Promise<boolean> {
    return this.services.existsForAccount(accountId, serviceId);
  }

  /** The caller's service, without a lock. */
  stateFor(accountId: string, serviceId: string): Promise<ServiceState | null> {
    return this.services.findStateForAccount(accountId, serviceId);
  }

  /** The caller's service under its row lock (SELECT ... FOR UPDATE): serialises a service's actions, status changes and keys. */
  lockFor(manager: EntityManager, accountId: string, serviceId: string): Promise<ServiceState | null> {
    return this.services.lockForAccount(manager, accountId, serviceId);
  }

  /** The same without an ownership check: for background work and the operator's commands only. */
  lockById(manager: EntityManager, serviceId: string): Promise<ServiceState | null> {
    return this.services.lockById(manager, serviceId);
  }
}

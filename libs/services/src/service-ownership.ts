import { Injectable } from '@nestjs/common';
import { ServicesRepository } from './services.repository';

/** What other areas may ask about services (for example a ticket's serviceId), without their entities. */
@Injectable()
export class ServiceOwnership {
  constructor(private readonly services: ServicesRepository) {}

  isOwnedBy(accountId: string, serviceId: string): Promise<boolean> {
    return this.services.existsForAccount(accountId, serviceId);
  }
}

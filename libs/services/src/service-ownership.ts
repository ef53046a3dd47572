import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What other areas may ask about services (for example a ticket's serviceId), without their entities. */
@Injectable()
export class ServiceOwnership {
  constructor(private readonly dataSource: DataSource) {}

  async isOwnedBy(accountId: string, serviceId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM services WHERE id = $1 AND account_id = $2', [serviceId, accountId]);
    return rows.length > 0;
  }
}

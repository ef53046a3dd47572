import { ApiProperty } from '@nestjs/swagger';
import { BILLING_CYCLES, BillingCycle } from '@app/products';
import { SERVICE_STATUSES, SERVICE_TYPES, ServiceStatus, ServiceType } from '../service.types';
import type { ServiceRow } from '../service.types';
import { addServicePart, declaredServiceParts, ServicePart, ServiceParts, ShownPart } from './service-parts';

// Each kind's part (ServiceParts) merges in below, as an interface of the same name.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ServiceResponse {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the service; used as {id} in the service paths.' })
  id: string;
  @ApiProperty({ example: 'web-01' })
  name: string;
  @ApiProperty({ enum: SERVICE_TYPES, example: 'vps', description: 'Kind of service.' })
  type: ServiceType;
  @ApiProperty({ enum: SERVICE_STATUSES, example: 'active', description: 'Billing lifecycle status.' })
  status: ServiceStatus;
  @ApiProperty({ example: 9.99, description: 'Recurring price per billing cycle (per hour for hourly), in `currency`.' })
  price: number;
  @ApiProperty({ enum: BILLING_CYCLES, example: 'monthly' })
  billingCycle: BillingCycle;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the next invoice is due; null if none.' })
  nextDueDate: string | null;
  @ApiProperty({ format: 'uuid', description: 'The catalogue product the service was ordered as.' })
  productId: string;
  @ApiProperty({ example: 'EUR', description: 'ISO 4217 currency code of price.' })
  currency: string;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  /** The services row with what its kind shows of it (ServiceKind.summaries). */
  static fromRow(row: ServiceRow, part?: ShownPart): ServiceResponse {
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      status: row.status,
      price: Number(row.price),
      billingCycle: row.billing_cycle,
      nextDueDate: row.next_due_date,
      productId: row.product_id,
      currency: row.currency,
      createdAt: row.created_at,
      ...Object.fromEntries(declaredServiceParts().map(({ key }) => [key, key === part?.key ? part.value : null])),
    } as ServiceResponse;
  }
}

/** Each kind's part under its key (ServiceParts), null for the services of the other kinds; fromRow sets them all. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface ServiceResponse extends ShownParts {}

type ShownParts = { [K in keyof ServiceParts]: ServiceParts[K] | null };

/** Declares a kind's part of the response (call it where its summary class is, so the schema has it whenever the kind is loaded). */
export function declareServicePart(part: ServicePart): ServicePart {
  addServicePart(ServiceResponse, part);
  return part;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiNullableRef } from '@app/core';
import { BILLING_CYCLES, BillingCycle } from '@app/products';
import { PUBLIC_POWER_STATES, PublicPowerState, SERVICE_STATUSES, SERVICE_TYPES, ServiceStatus, ServiceType } from '../service.types';
import type { ServiceRow } from '../service.types';

export class SshEndpointResponse {
  @ApiProperty({
    example: '203.0.113.17',
    description: 'Host to connect to: the public address, or the forwarded address in user networking.',
  })
  host: string;
  @ApiProperty({ example: 22, description: 'TCP port of the SSH server (22, or the forwarded port).' })
  port: number;
}

export class InstanceBackupsResponse {
  @ApiProperty({ example: true, description: 'Daily backups are enabled (POST .../instance/backups/enable).' })
  enabled: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the next daily backup is due.' })
  nextRunAt: string | null;
}

export class InstanceSummaryResponse {
  @ApiProperty({
    enum: PUBLIC_POWER_STATES,
    example: 'running',
    description:
      'Power state of the virtual machine. `starting` also while its machine is being made (power actions answer 409 `action_in_progress`). A machine that could not be made, or that vanished from its hypervisor, shows `stopped`, power actions answer 409 `invalid_state`, and an `instance_fault` notification says which.',
  })
  powerState: PublicPowerState;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '203.0.113.17',
    description: 'Primary public IPv4 address; null once the service is terminated.',
  })
  ipv4: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '2001:db8:4f2a:10::1',
    description: 'Primary public IPv6 address; null once the service is terminated.',
  })
  ipv6: string | null;
  @ApiProperty({ example: 'eu-central', description: 'Region the instance runs in.' })
  region: string;
  @ApiNullableRef(SshEndpointResponse, {
    description:
      'Where to reach the SSH server: `ssh -p <port> root@<host>` with one of the keys the machine was built with; null if unknown, and once the service is terminated (the port or address goes back to the pool).',
  })
  ssh: SshEndpointResponse | null;
  @ApiProperty({
    type: InstanceBackupsResponse,
    required: false,
    description: 'Present while daily backups are enabled; absent when they are not. GET .../instance/backups lists them.',
  })
  backups?: InstanceBackupsResponse;
  @ApiPropertyOptional({
    type: Boolean,
    example: false,
    description:
      'Present, and false, while the hypervisor host of this VPS does not answer: `powerState` is then the last one known, and power actions answer 503 `hypervisor_unavailable`. Absent while the host answers.',
  })
  hostReachable?: boolean;
  @ApiProperty({
    example: false,
    description:
      'True while the VPS is booted from the rescue system (POST .../instance/rescue), its own disk attached as the second disk (/dev/vdb); POST .../instance/unrescue, or the end of RESCUE_HOURS, boots its own disk again.',
  })
  rescue: boolean;
}

export const OBJECT_STORAGE_STATES = ['pending', 'active', 'suspended', 'closed', 'purged'] as const;

export class ObjectStorageSummaryResponse {
  @ApiProperty({
    enum: OBJECT_STORAGE_STATES,
    example: 'active',
    description:
      'The storage gateway user: `pending` until the gateway has applied the latest change (provisioning, a status change or a new key; retried while the gateway is unreachable), then `active`, `suspended` (S3 answers 403), `closed` (terminated: keys removed) or `purged` (user and data deleted).',
  })
  state: (typeof OBJECT_STORAGE_STATES)[number];
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    nullable: true,
    example: 52428800,
    description: 'Bytes stored, as the gateway last reported; null before the first reading.',
  })
  usedBytes: number | null;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    nullable: true,
    example: 1200,
    description: 'Objects stored; null before the first reading.',
  })
  objects: number | null;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, example: 2, description: 'Buckets; null before the first reading.' })
  buckets: number | null;
  @ApiProperty({ type: 'integer', format: 'int64', example: 250000000000, description: 'Quota in bytes (from the product).' })
  quotaBytes: number;
  @ApiProperty({ type: 'integer', format: 'int64', example: 5000000, description: 'Quota in objects (from the product).' })
  quotaObjects: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When usage was last read from the gateway.' })
  usageUpdatedAt: string | null;
}

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
  @ApiNullableRef(InstanceSummaryResponse, { description: 'The virtual machine of a VPS; null for other types.' })
  instance: InstanceSummaryResponse | null;
  @ApiNullableRef(ObjectStorageSummaryResponse, {
    description: 'The storage of an object storage service (quota, usage); null for other types.',
  })
  objectStorage: ObjectStorageSummaryResponse | null;

  /** The services row with what its kind shows of it (ServiceKind.summaries). */
  static fromRow(row: ServiceRow, parts: ServiceParts = {}): ServiceResponse {
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
      instance: parts.instance ?? null,
      objectStorage: parts.objectStorage ?? null,
    };
  }
}

/** What a kind adds to a service's response (its own part, e.g. a VPS's `instance`); the others stay null. */
export type ServiceParts = Partial<Pick<ServiceResponse, 'instance' | 'objectStorage'>>;

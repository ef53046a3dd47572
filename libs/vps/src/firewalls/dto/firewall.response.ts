import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DIRECTIONS, PROTOCOLS } from '../firewall-rules';
import type { AttachmentStatus, FirewallRow } from '../firewalls.repository';

export const ATTACHMENT_STATUSES: AttachmentStatus[] = ['pending', 'applied', 'failed'];

export class FirewallRuleResponse {
  @ApiProperty({ enum: DIRECTIONS, example: 'in' })
  direction: (typeof DIRECTIONS)[number];
  @ApiProperty({ enum: PROTOCOLS, example: 'tcp' })
  protocol: (typeof PROTOCOLS)[number];
  @ApiPropertyOptional({ example: '80', description: 'Absent: every port (and always for icmp).' })
  port?: string;
  @ApiProperty({ type: [String], example: ['0.0.0.0/0', '::/0'] })
  addresses: string[];
  @ApiPropertyOptional({ example: 'web server' })
  description?: string;
}

export class FirewallAttachmentResponse {
  @ApiProperty({ format: 'uuid', description: 'The VPS service.' })
  serviceId: string;
  @ApiProperty({
    enum: ATTACHMENT_STATUSES,
    example: 'applied',
    description: "`pending` until the VPS's hypervisor enforces the current rules, `failed` while it could not (retried).",
  })
  status: AttachmentStatus;
}

export class FirewallResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'web' })
  name: string;
  @ApiProperty({ type: [FirewallRuleResponse] })
  rules: FirewallRuleResponse[];
  @ApiProperty({ type: [FirewallAttachmentResponse], description: 'The VPSes the firewall is applied to.' })
  appliedTo: FirewallAttachmentResponse[];
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
  @ApiProperty({ format: 'date-time' })
  updatedAt: string;

  static from(row: FirewallRow): FirewallResponse {
    return { id: row.id, name: row.name, rules: row.rules, appliedTo: row.appliedTo, createdAt: row.createdAt, updatedAt: row.updatedAt };
  }
}

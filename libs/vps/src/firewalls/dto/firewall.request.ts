import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsIn, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { IsListOf, Trim } from '@app/core';
import { DIRECTIONS, FirewallRule, PROTOCOLS } from '../firewall-rules';

/** The most rules one request may carry; FIREWALL_RULES_MAX (configuration, 409 quota_exceeded) is the account's limit. */
const RULES_IN_A_REQUEST = 500;
const SERVICES_IN_A_REQUEST = 100;

export class FirewallRuleRequest implements FirewallRule {
  @ApiProperty({ enum: DIRECTIONS, example: 'in', description: '`in`: traffic to the VPS; `out`: traffic the VPS sends.' })
  @IsIn(DIRECTIONS)
  direction: (typeof DIRECTIONS)[number];

  @ApiProperty({ enum: PROTOCOLS, example: 'tcp' })
  @IsIn(PROTOCOLS)
  protocol: (typeof PROTOCOLS)[number];

  @ApiPropertyOptional({
    example: '80',
    maxLength: 11,
    description:
      "A port (`80`) or range (`8000-8100`): the VPS's port for `in`, the remote port for `out`. Leave out for every port; never with icmp.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(11)
  port?: string;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 100,
    example: ['0.0.0.0/0', '::/0'],
    description:
      'IPv4 and IPv6 CIDRs of the other side (sources for `in`, destinations for `out`); a bare address is one host. Shown in canonical form.',
  })
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  @ArrayMaxSize(100)
  @ArrayMinSize(1)
  addresses: string[];

  @ApiPropertyOptional({ maxLength: 255, example: 'web server' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  description?: string;
}

function FirewallName(): PropertyDecorator {
  return applyDecorators(Length(1, 64), IsString(), Trim());
}

function Rules(): PropertyDecorator {
  return applyDecorators(
    ArrayMaxSize(RULES_IN_A_REQUEST),
    IsListOf(() => FirewallRuleRequest),
  );
}

export class CreateFirewallRequest {
  @ApiProperty({ minLength: 1, maxLength: 64, example: 'web', description: 'Unique in the account.' })
  @FirewallName()
  name: string;

  @ApiPropertyOptional({
    type: [FirewallRuleRequest],
    default: [],
    description:
      'Once the firewall is applied, inbound traffic no `in` rule allows is dropped; outbound is free unless an `out` rule exists.',
  })
  @IsOptional()
  @Rules()
  rules?: FirewallRuleRequest[];
}

export class UpdateFirewallRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: 64, example: 'web and mail' })
  @IsOptional()
  @FirewallName()
  name?: string;

  @ApiPropertyOptional({ type: [FirewallRuleRequest], description: 'Replaces every rule; VPSes it is applied to follow within seconds.' })
  @IsOptional()
  @Rules()
  rules?: FirewallRuleRequest[];
}

export class FirewallTargetsRequest {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    minItems: 1,
    maxItems: SERVICES_IN_A_REQUEST,
    uniqueItems: true,
    description: 'VPS service ids.',
  })
  @IsUUID('all', { each: true })
  @ArrayUnique()
  @ArrayMaxSize(SERVICES_IN_A_REQUEST)
  @ArrayMinSize(1)
  serviceIds: string[];
}

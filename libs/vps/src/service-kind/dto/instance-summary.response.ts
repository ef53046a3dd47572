import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiNullableRef } from '@app/core';
import { declareServicePart } from '@app/services';
import { PUBLIC_POWER_STATES, PublicPowerState } from '../../vps.types';

export class SshHostKeyResponse {
  @ApiProperty({ example: 'ssh-ed25519', description: 'The key type, as OpenSSH names it.' })
  type: string;
  @ApiProperty({
    example: 'SHA256:pFm3ZtXmW5wJp1q3mYbE0d9c4fJm1Rr1r6Wg5qkq9xA',
    description: 'The fingerprint ssh prints on first connection (`ssh-keygen -l`).',
  })
  fingerprint: string;
  @ApiProperty({
    example: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPmfroQ5X/hvzDUHLkJAwYtggu3T3Ai3LLFsaRrwWH6Z',
    description: 'The public key.',
  })
  publicKey: string;
  @ApiProperty({
    example: '203.0.113.17 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPmfroQ5X/hvzDUHLkJAwYtggu3T3Ai3LLFsaRrwWH6Z',
    description: 'The line to add to `~/.ssh/known_hosts` for this host and port, so the first connection is checked too.',
  })
  knownHosts: string;
}

export class SshEndpointResponse {
  @ApiProperty({
    example: '203.0.113.17',
    description: 'Host to connect to: the public address, or the forwarded address in user networking.',
  })
  host: string;
  @ApiProperty({ example: 22, description: 'TCP port of the SSH server (22, or the forwarded port).' })
  port: number;
  @ApiProperty({
    type: [SshHostKeyResponse],
    description:
      "The host keys the system answering at this address has: the API makes them, and keeps them across rebuilds and restores. In rescue mode, the rescue system's own keys (new for each rescue). Empty for a VPS made before the API kept host keys, until its next rebuild.",
  })
  hostKeys: SshHostKeyResponse[];
}

export class InstanceBackupsResponse {
  @ApiProperty({ example: true, description: 'Daily backups are enabled (POST .../instance/backups/enable).' })
  enabled: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the next daily backup is due.' })
  nextRunAt: string | null;
}

export class InstanceFirewallResponse {
  @ApiProperty({ format: 'uuid', description: 'The firewall (GET /api/firewalls/{id}).' })
  id: string;
  @ApiProperty({ example: 'web' })
  name: string;
  @ApiProperty({
    enum: ['pending', 'applied', 'failed'],
    example: 'applied',
    description: "`pending` until the hypervisor enforces the firewall's current rules; `failed` while it could not (retried).",
  })
  status: 'pending' | 'applied' | 'failed';
}

export class InstanceVolumeResponse {
  @ApiProperty({ format: 'uuid', description: 'The volume service (GET /api/services/{id}).' })
  id: string;
  @ApiProperty({ example: 'db-data' })
  name: string;
  @ApiProperty({ type: 'integer', format: 'int32', example: 100 })
  sizeGb: number;
  @ApiProperty({ enum: ['attaching', 'attached', 'detaching', 'resizing'], example: 'attached' })
  state: 'attaching' | 'attached' | 'detaching' | 'resizing';
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '/dev/disk/by-id/virtio-vol-3f2a9c0e5b7d4e1a',
    description: 'Where the guest finds it (null while attaching).',
  })
  device: string | null;
}

export class InstanceAddressResponse {
  @ApiProperty({ example: '203.0.113.17' })
  ip: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'mail.example.com',
    description: "What the address resolves back to (PTR): set with PUT .../instance/rdns, else the provider's default; null: none.",
  })
  ptr: string | null;
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
  @ApiProperty({
    type: [InstanceFirewallResponse],
    description:
      'Cloud firewalls applied (POST /api/firewalls/{id}/apply), oldest first. None: every packet passes; with one or more, inbound traffic no `in` rule allows is dropped.',
  })
  firewalls: InstanceFirewallResponse[];
  @ApiProperty({
    type: [InstanceVolumeResponse],
    description: 'Volumes attached (POST /api/services/{volumeId}/volume/attach), in the order they were attached.',
  })
  volumes: InstanceVolumeResponse[];
  @ApiProperty({
    type: [InstanceAddressResponse],
    description: 'The public addresses (IPv4 first) with their reverse DNS; none in user networking and once terminated.',
  })
  addresses: InstanceAddressResponse[];
}

/** A VPS's part of the service response. */
export const INSTANCE_PART = declareServicePart({
  type: 'vps',
  key: 'instance',
  response: InstanceSummaryResponse,
  description: 'The virtual machine of a VPS; null for other types.',
});

declare module '@app/services' {
  interface ServiceParts {
    instance: InstanceSummaryResponse;
  }
}

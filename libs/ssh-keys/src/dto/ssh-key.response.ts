import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import { SshKey } from '../ssh-key.entity';

export class SshKeyResponse {
  @ApiProperty({ format: 'uuid', description: 'SSH key id.' })
  id: string;
  @ApiProperty({ example: 'laptop', description: 'Name of the key.' })
  name: string;
  @ApiProperty({
    example: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJuWfUrJ265mM1ebCtw3bmpgLLtYygbyTeBUXJE5MZeB ada@laptop',
    description: 'The public key, normalised.',
  })
  publicKey: string;
  @ApiProperty({
    example: 'SHA256:7iBamZgV+bgK3yaj3IBpzPhd163rDgG93/k/R3saMak',
    description: 'SHA-256 fingerprint, as ssh-keygen -l shows it.',
  })
  fingerprint: string;
  @ApiProperty({
    example: 'ssh-ed25519',
    enum: ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'],
    description: 'Key type.',
  })
  type: string;
  @ApiProperty({ type: 'integer', example: 256, description: 'Key size in bits.' })
  bits: number;
  @ApiProperty({ format: 'date-time', description: 'When the key was added.' })
  createdAt: string;

  static from(key: SshKey): SshKeyResponse {
    return {
      id: key.id,
      name: key.name,
      publicKey: key.publicKey,
      fingerprint: key.fingerprint,
      type: key.type,
      bits: key.bits,
      createdAt: isoTimestamp(key.createdAt),
    };
  }
}

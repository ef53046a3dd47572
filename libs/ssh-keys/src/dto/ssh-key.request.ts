import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, MaxLength } from 'class-validator';
import { Trim } from '@app/core';

/** A name to recognise a key by: trimmed, 1 to 64 characters (bottom up, as the stacked decorators were applied). */
function KeyName(): PropertyDecorator {
  return applyDecorators(Length(1, 64), IsString(), Trim());
}

export class CreateSshKeyRequest {
  @ApiProperty({ minLength: 1, maxLength: 64, example: 'laptop', description: 'A name to recognise the key by.' })
  @KeyName()
  name: string;

  @ApiProperty({
    maxLength: 16384,
    example: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJuWfUrJ265mM1ebCtw3bmpgLLtYygbyTeBUXJE5MZeB ada@laptop',
    description: 'One OpenSSH public key line: ssh-ed25519, ecdsa-sha2-nistp256/384/521, or ssh-rsa of at least 2048 bits.',
  })
  @IsString()
  @MaxLength(16384)
  publicKey: string;
}

export class UpdateSshKeyRequest {
  @ApiProperty({ minLength: 1, maxLength: 64, example: 'work laptop', description: 'The new name.' })
  @KeyName()
  name: string;
}

import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp, type Scope } from '@app/core';
import { ApiKey } from '../api-key.entity';

export class ApiKeyResponse {
  @ApiProperty({ format: 'uuid', description: 'API key id.' })
  id: string;
  @ApiProperty({ example: 'terraform', description: 'Name of the key.' })
  name: string;
  @ApiProperty({ example: 'hpk_3fA9kQ2m', description: 'First 12 characters of the key, to recognise it.' })
  prefix: string;
  @ApiProperty({ enum: ['read', 'write'], isArray: true, example: ['read', 'write'], description: 'What the key may do.' })
  scopes: Scope[];
  @ApiProperty({ format: 'date-time', description: 'When the key was created.' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: 'string', description: 'When the key expires; null if never.' })
  expiresAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: 'string', description: 'Last use, to the minute; null if never used.' })
  lastUsedAt: string | null;

  static from(key: ApiKey): ApiKeyResponse {
    return {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes,
      createdAt: isoTimestamp(key.createdAt),
      expiresAt: isoTimestamp(key.expiresAt),
      lastUsedAt: isoTimestamp(key.lastUsedAt),
    };
  }
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({ example: 'hpk_3fA9kQ2mZx7Lr1Pq8Wc4Vn6Tb0Hy5Ju2Ks9Dg3', description: 'The secret key. Shown only in this response.' })
  key: string;

  static fromCreated(created: ApiKey, key: string): CreatedApiKeyResponse {
    return { ...ApiKeyResponse.from(created), key };
  }
}

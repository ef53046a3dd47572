import { ApiProperty } from '@nestjs/swagger';
import type { CredentialRow } from '../object-storage-credentials.repository';

export class ObjectStorageCredentialsResponse {
  @ApiProperty({ example: 'https://eu-central-1.objects.example.net', description: 'S3-compatible endpoint URL.' })
  endpoint: string;
  @ApiProperty({ example: 'eu-central-1', description: 'Region to sign requests for.' })
  region: string;
  @ApiProperty({ example: 'svc-1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed', description: 'The bucket of this service.' })
  bucket: string;
  @ApiProperty({ example: 'HSKQ7M2XKA4PL3ZRT5VW', description: 'Access key id.' })
  accessKeyId: string;
  @ApiProperty({ example: 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY12', description: 'Secret access key.' })
  secretAccessKey: string;
  @ApiProperty({ format: 'date-time', description: 'When the key was issued.' })
  createdAt: string;

  /** `secretAccessKey` is the opened `secret_sealed`. */
  static fromRow(row: CredentialRow, secretAccessKey: string): ObjectStorageCredentialsResponse {
    return {
      endpoint: row.endpoint,
      region: row.region,
      bucket: row.bucket,
      accessKeyId: row.access_key_id,
      secretAccessKey,
      createdAt: row.created_at,
    };
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import type { PresignedUpload } from '../../blob-storage/blob-storage';
import type { Attachment } from '../attachment.entity';

export class AttachmentResponse {
  @ApiProperty({ format: 'uuid', description: 'Attachment id.' })
  id: string;
  @ApiProperty({ example: 'screenshot.png', description: 'File name.' })
  filename: string;
  @ApiProperty({ example: 'image/png', description: 'Content type.' })
  contentType: string;
  @ApiProperty({ type: 'integer', example: 48213, description: 'Size in bytes.' })
  size: number;
  @ApiProperty({ format: 'uri', description: 'Short-lived URL to download the file.' })
  downloadUrl: string;
  @ApiProperty({ format: 'date-time', description: 'When downloadUrl stops working.' })
  downloadUrlExpiresAt: string;

  static from(row: Attachment, downloadUrl: string, expiresAt: Date): AttachmentResponse {
    return {
      id: row.id,
      filename: row.filename,
      contentType: row.contentType,
      size: row.size ?? row.declaredSize,
      downloadUrl,
      downloadUrlExpiresAt: isoTimestamp(expiresAt),
    };
  }
}

export class UploadHeaders {
  @ApiProperty({ example: 'image/png', description: 'Send exactly this Content-Type.' })
  'Content-Type': string;
  @ApiPropertyOptional({ example: '48213', description: 'Send exactly this Content-Length (S3 storage signs it).' })
  'Content-Length'?: string;
  @ApiPropertyOptional({
    enum: ['*'],
    description: 'Send exactly this If-None-Match (S3 storage signs it: a stored file is never replaced).',
  })
  'If-None-Match'?: string;
}

export class PresignedUploadResponse {
  @ApiProperty({ format: 'uuid', description: 'Id to pass in attachmentIds once the file is uploaded.' })
  attachmentId: string;
  @ApiProperty({ format: 'uri', description: 'Where to PUT the file.' })
  url: string;
  @ApiProperty({ enum: ['PUT'], description: 'HTTP method for the upload.' })
  method: 'PUT';
  @ApiProperty({ type: UploadHeaders, description: 'Headers to send with the upload.' })
  headers: Record<string, string>;
  @ApiProperty({ format: 'date-time', description: 'When the URL stops working (15 minutes).' })
  expiresAt: string;
  @ApiProperty({ type: 'integer', example: 48213, description: 'The most bytes the upload may have.' })
  maxSize: number;

  static fromUpload(attachmentId: string, upload: PresignedUpload, expiresAt: Date, maxSize: number): PresignedUploadResponse {
    return { attachmentId, ...upload, expiresAt: isoTimestamp(expiresAt), maxSize };
  }
}

export class PresignResponse {
  @ApiProperty({ type: [PresignedUploadResponse], description: 'One upload per requested file, in order.' })
  uploads: PresignedUploadResponse[];

  static fromUploads(uploads: PresignedUploadResponse[]): PresignResponse {
    return { uploads };
  }
}

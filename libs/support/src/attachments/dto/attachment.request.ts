import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsInt, IsString, Length, Max, Min } from 'class-validator';
import { IsListOf, wholeNumberMessage } from '@app/core';
import { MAX_ATTACHMENT_BYTES, MAX_FILES_PER_PRESIGN } from '../../support.types';

const ATTACHMENT_SIZE_RULE = { message: `${wholeNumberMessage('size', 1, MAX_ATTACHMENT_BYTES).message} (10 MiB)` };

export class PresignFile {
  @ApiProperty({
    minLength: 1,
    maxLength: 255,
    example: 'screenshot.png',
    description: 'File name; path parts and control characters are removed.',
  })
  @IsString()
  @Length(1, 1000)
  filename: string;

  @ApiProperty({ example: 'image/png', description: 'png, jpeg, gif, pdf, plain text, log or zip.' })
  @IsString()
  @Length(1, 100)
  contentType: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ATTACHMENT_BYTES, example: 48213, description: 'Exact size in bytes.' })
  @IsInt(ATTACHMENT_SIZE_RULE)
  @Min(1, ATTACHMENT_SIZE_RULE)
  @Max(MAX_ATTACHMENT_BYTES, ATTACHMENT_SIZE_RULE)
  size: number;
}

export class PresignRequest {
  @ApiProperty({ type: [PresignFile], minItems: 1, maxItems: MAX_FILES_PER_PRESIGN, description: 'The files to upload.' })
  @IsListOf(() => PresignFile)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FILES_PER_PRESIGN)
  files: PresignFile[];
}

import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { MAX_ATTACHMENT_BYTES, MAX_FILES_PER_PRESIGN } from '../../support.types';

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
  @IsInt()
  @Min(1)
  @Max(MAX_ATTACHMENT_BYTES, { message: `size must not be greater than ${MAX_ATTACHMENT_BYTES} (10 MiB)` })
  size: number;
}

export class PresignRequest {
  @ApiProperty({ type: [PresignFile], minItems: 1, maxItems: MAX_FILES_PER_PRESIGN, description: 'The files to upload.' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FILES_PER_PRESIGN)
  @ValidateNested({ each: true })
  @Type(() => PresignFile)
  files: PresignFile[];
}

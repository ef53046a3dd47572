import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length, Matches } from 'class-validator';

export class CreateSnapshotRequest {
  @ApiProperty({ example: 'before-upgrade', description: 'What the snapshot is called in GET /api/images (1 to 100 characters).' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 100)
  // Unicode's control characters (Cc), spelled without \p{}: the pattern goes into the OpenAPI document, whose validators read it without the u flag.
  @Matches(/^[^\u0000-\u001f\u007f-\u009f]*$/, { message: 'name must not contain control characters' })
  name: string;
}

import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsOptional, IsString, IsUUID, Length } from 'class-validator';

export class RebuildInstanceRequest {
  @ApiProperty({ example: 'debian-12', description: 'Slug or id of an available image (GET /api/images).' })
  @IsString()
  @Length(1, 100)
  image: string;

  /**
   * Keys of the account root logs in with; omitted: all of the account's keys. Keys deleted from
   * the account later stay in the machine until it is rebuilt.
   */
  @ApiProperty({ required: false, type: [String], format: 'uuid', example: ['5b0c1f8e-2b7a-4c51-9d7e-0f2a6c3b9e11'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  sshKeyIds?: string[];
}

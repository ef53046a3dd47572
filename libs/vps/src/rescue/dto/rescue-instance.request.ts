import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsOptional, IsUUID } from 'class-validator';

export class RescueInstanceRequest {
  /** Keys of the account root logs in to the rescue system with; omitted: all of the account's keys. */
  @ApiProperty({ required: false, type: [String], format: 'uuid', example: ['5b0c1f8e-2b7a-4c51-9d7e-0f2a6c3b9e11'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  sshKeyIds?: string[];
}

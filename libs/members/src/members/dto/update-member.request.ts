import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Role, ROLES } from '@app/core';

export class UpdateMemberRequest {
  @ApiProperty({ enum: ROLES, enumName: 'Role', description: 'The new role; an admin may not grant or take away `owner`.' })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}

import { Controller, Get, Header } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Principal, RequireScope, UuidParam } from '@app/core';
import { ObjectStorageCredentialsResponse } from './dto/object-storage-credentials.response';
import { ObjectStorageService } from './object-storage.service';

/** The bucket of an object storage service; any other type of service has none (404). */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/object-storage')
export class ObjectStorageController {
  constructor(private readonly storage: ObjectStorageService) {}

  @Get('credentials')
  @RequireScope('write')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Get the S3 credentials of an object storage service', operationId: 'getObjectStorageCredentials' })
  @ApiOkResponse({ type: ObjectStorageCredentialsResponse })
  @ApiProblems(400, 401, 403, 404, 409, 429)
  credentials(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ObjectStorageCredentialsResponse> {
    return this.storage.credentialsFor(principal, id);
  }
}

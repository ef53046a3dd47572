import { Controller, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiProblems,
  CurrentPrincipal,
  Idempotent,
  PageQuery,
  Paginated,
  PaginatedResponse,
  Principal,
  RequireRole,
  RequireScope,
  UuidParam,
} from '@app/core';
import { ServiceResponse, ServicesService } from '@app/services';
import { BucketResponse } from './dto/bucket.response';
import { ObjectStorageCredentialsResponse } from './dto/object-storage-credentials.response';
import { ObjectStorageUsage } from './object-storage-usage';
import { ObjectStorageService } from './object-storage.service';

const PaginatedBuckets = PaginatedResponse(BucketResponse, 'PaginatedBuckets');

/** The storage of an object storage service; any other type of service has none (404). */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/object-storage')
export class ObjectStorageController {
  constructor(
    private readonly storage: ObjectStorageService,
    private readonly usage: ObjectStorageUsage,
    private readonly services: ServicesService,
  ) {}

  @Get('credentials')
  @RequireScope('write')
  @RequireRole('member')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Get the S3 credentials of an object storage service', operationId: 'getObjectStorageCredentials' })
  @ApiOkResponse({ type: ObjectStorageCredentialsResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state'] }, 429)
  credentials(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ObjectStorageCredentialsResponse> {
    return this.storage.credentialsFor(principal, id);
  }

  @Post('credentials/rotate')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Replace the S3 key of an object storage service; the old key stops working',
    operationId: 'rotateObjectStorageCredentials',
  })
  @ApiOkResponse({ type: ObjectStorageCredentialsResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state'] }, 429)
  rotate(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ObjectStorageCredentialsResponse> {
    return this.storage.rotate(principal, id);
  }

  @Get('buckets')
  @ApiOperation({ summary: 'List the buckets of an object storage service with their sizes', operationId: 'listObjectStorageBuckets' })
  @ApiOkResponse({ type: PaginatedBuckets })
  @ApiProblems(400, 401, 403, 404, 429, 503)
  buckets(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Query() query: PageQuery,
  ): Promise<Paginated<BucketResponse>> {
    return this.usage.buckets(principal.accountId, id, query);
  }

  @Post('usage/refresh')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Read the usage of an object storage service from the gateway now (at most once a minute)',
    operationId: 'refreshObjectStorageUsage',
  })
  @ApiOkResponse({ type: ServiceResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state'] }, 422, 429, 503)
  async refreshUsage(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ServiceResponse> {
    await this.usage.refreshFor(principal.accountId, id);
    return this.services.get(principal.accountId, id);
  }
}

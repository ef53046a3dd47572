import { Controller, Delete, Get, HttpCode, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { ImageResponse } from './dto/image.response';
import { ImagesService } from './images.service';

const PaginatedImages = PaginatedResponse(ImageResponse, 'PaginatedImages');

/** The operating systems a VPS can run: the operator's (image:add), and the account's own snapshots. */
@ApiTags('Images')
@ApiBearerAuth()
@Controller('api/images')
export class ImagesController {
  constructor(private readonly images: ImagesService) {}

  @Get()
  @ApiOperation({
    summary: 'List the images a VPS can be built from, newest first: the system images and the account’s snapshots',
    operationId: 'listImages',
  })
  @ApiOkResponse({ type: PaginatedImages })
  @ApiProblems(400, 401, 403, 429)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<ImageResponse>> {
    return this.images.list(principal.accountId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an image', operationId: 'getImage' })
  @ApiOkResponse({ type: ImageResponse })
  @ApiProblems(400, 401, 403, 404, 429)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ImageResponse> {
    return this.images.get(principal.accountId, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a snapshot',
    description:
      'Deletes one of the account’s snapshots and its disk on the hypervisor. System images cannot be deleted (403); a snapshot a VPS is built on (its disk is a copy-on-write layer over it) or still being made answers 409.',
    operationId: 'deleteImage',
  })
  @ApiNoContentResponse({ description: 'The snapshot is gone.' })
  @ApiProblems(
    400,
    401,
    { 403: ['insufficient_scope', 'forbidden'] },
    404,
    { 409: ['invalid_state'], 503: ['unavailable', 'hypervisor_unavailable'] },
    429,
  )
  delete(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.images.deleteSnapshot(principal, id);
  }
}

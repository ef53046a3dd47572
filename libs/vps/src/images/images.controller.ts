import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, PageQuery, Paginated, PaginatedResponse, UuidParam } from '@app/core';
import { ImageResponse } from './dto/image.response';
import { ImagesService } from './images.service';

const PaginatedImages = PaginatedResponse(ImageResponse, 'PaginatedImages');

/** The operating systems a VPS can run (the same list for every account; operators add them with image:add). */
@ApiTags('Images')
@ApiBearerAuth()
@Controller('api/images')
export class ImagesController {
  constructor(private readonly images: ImagesService) {}

  @Get()
  @ApiOperation({ summary: 'List the operating system images a VPS can be built from, newest first', operationId: 'listImages' })
  @ApiOkResponse({ type: PaginatedImages })
  @ApiProblems(400, 401, 403, 429)
  list(@Query() query: PageQuery): Promise<Paginated<ImageResponse>> {
    return this.images.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an image', operationId: 'getImage' })
  @ApiOkResponse({ type: ImageResponse })
  @ApiProblems(400, 401, 403, 404, 429)
  get(@UuidParam() id: string): Promise<ImageResponse> {
    return this.images.get(id);
  }
}

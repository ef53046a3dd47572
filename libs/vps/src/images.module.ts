import { Module } from '@nestjs/common';
import { VpsModule } from './vps.module';
import { ImagesController } from './images/images.controller';

/**
 * The image catalogue's routes (GET /api/images). The catalogue itself lives in VpsModule, which
 * installs images on new and rebuilt VPSes; the app lists this module after ObjectStorageModule so
 * the OpenAPI document keeps its path order (Nest registers routes in module order).
 */
@Module({
  imports: [VpsModule],
  controllers: [ImagesController],
})
export class ImagesModule {}

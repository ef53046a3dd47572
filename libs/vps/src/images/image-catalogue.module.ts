import { Module } from '@nestjs/common';
import { ComputeModule } from '../compute/compute.module';
import { ImageAddCommand } from './cli/image-add.command';
import { ImageRemoveCommand } from './cli/image-remove.command';
import { ImagesDemoSeeder } from './images.demo';
import { ImageVolumesSweep } from './image-volumes-sweep';
import { ImagesRepository } from './images.repository';
import { ImagesService } from './images.service';

/** The images a VPS is made from: the operator's system images and the accounts' snapshots, uploaded through the image store. */
@Module({
  imports: [ComputeModule],
  providers: [ImagesRepository, ImagesService, ImageVolumesSweep, ImageAddCommand, ImageRemoveCommand, ImagesDemoSeeder],
  exports: [ImagesRepository, ImagesService],
})
export class ImageCatalogueModule {}

import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, requireArg } from '@app/core';
import { ImagesService } from '../images.service';

@Injectable()
export class ImageRemoveCommand extends CliCommand {
  readonly name = 'image:remove';
  readonly usage = 'image:remove --slug <slug>';
  readonly options = ['slug'];

  constructor(private readonly images: ImagesService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    return [await this.images.remove(requireArg(args, 'slug'))];
  }
}

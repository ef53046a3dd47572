import { Injectable } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Length, Matches, Max, Min } from 'class-validator';
import { CliArgs, CliCommand, requireArg, validateInput } from '@app/core';
import { ImagesService } from '../images.service';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

class AddImageInput {
  @Matches(/^[a-z0-9][a-z0-9.-]{0,63}$/, { message: 'slug must be lower-case letters, digits, . and - (at most 64), e.g. debian-12' })
  slug: string;

  @Transform(trimmed)
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  @Matches(/^[a-z0-9][a-z0-9._-]{0,31}$/, { message: 'os-family must be a lower-case word such as debian or ubuntu' })
  osFamily: string;

  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/, { message: 'os-version must be a version such as 12 or 24.04' })
  osVersion: string;

  @IsOptional()
  @IsInt({ message: 'min-disk-gb must be a whole number of GB' })
  @Min(1, { message: 'min-disk-gb must be at least 1' })
  @Max(65536, { message: 'min-disk-gb must be at most 65536' })
  minDiskGb?: number;
}

@Injectable()
export class ImageAddCommand extends CliCommand {
  readonly name = 'image:add';
  readonly usage =
    'image:add --slug <slug> --name <name> --file <qcow2 or raw> [--os-family debian] [--os-version 12] [--min-disk-gb N] [--rescue]';
  readonly options = ['slug', 'name', 'file', 'os-family', 'os-version', 'min-disk-gb'];
  /** `--rescue`: the rescue mode boots the newest such image unless RESCUE_IMAGE names one. */
  override readonly flags = ['rescue'];

  constructor(private readonly images: ImagesService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const slug = requireArg(args, 'slug');
    const file = requireArg(args, 'file');
    // debian-12 -> family debian, version 12; ubuntu-24.04-minimal -> ubuntu, 24.04; unless given.
    const [, family, version] = /^([a-z]+)(?:-(\d+(?:\.\d+)*))?/.exec(slug) ?? [];
    const minDisk = args['min-disk-gb'];
    const input = await validateInput(AddImageInput, {
      slug,
      name: requireArg(args, 'name'),
      osFamily: args['os-family'] ?? family ?? slug,
      osVersion: args['os-version'] ?? (version || 'latest'),
      minDiskGb: minDisk === undefined ? undefined : /^\d+$/.test(String(minDisk)) ? Number(minDisk) : NaN,
    });
    const pools: unknown[] = [];
    const image = await this.images.add({ ...input, file, rescue: args.rescue === true }, (made) =>
      pools.push({
        storagePool: made.pool,
        hypervisor: made.hypervisor,
        path: made.path,
        made: true,
        autostart: true,
        note: `The hypervisor had no storage pool ${made.pool}: made it, a directory pool at ${made.path}, started now and whenever libvirtd starts.`,
      }),
    );
    // The image first: scripts read it as the first line.
    return [image, ...pools];
  }
}

import { Injectable } from '@nestjs/common';
import { IsIn, IsInt, IsIP, IsNumber, IsOptional, Matches, Max, Min } from 'class-validator';
import { CliArgs, CliCommand, requireArg, validateInput } from '@app/core';
import { VPS_REGIONS } from '../../vps.types';
import { HostsService } from '../hosts.service';
import { IsHostLibvirtUri } from '../../hosts/libvirt-uri';

const whole = (value: unknown) => (value === undefined ? undefined : /^\d+$/.test(String(value)) ? Number(value) : NaN);
const decimal = (value: unknown) => (value === undefined ? undefined : /^\d+(\.\d{1,2})?$/.test(String(value)) ? Number(value) : NaN);

class AddHostInput {
  @Matches(/^[a-z0-9][a-z0-9.-]{0,63}$/, { message: 'name must be lower-case letters, digits, . and - (at most 64), e.g. kvm2' })
  name: string;

  @IsIn(VPS_REGIONS, { message: `region must be one of ${VPS_REGIONS.join(', ')}` })
  region: string;

  @IsHostLibvirtUri()
  uri: string;

  @IsInt({ message: 'vcpus must be a whole number from 1 to 4096' })
  @Min(1, { message: 'vcpus must be a whole number from 1 to 4096' })
  @Max(4096, { message: 'vcpus must be a whole number from 1 to 4096' })
  vcpus: number;

  @IsInt({ message: 'memory-gb must be a whole number from 1 to 65536' })
  @Min(1, { message: 'memory-gb must be a whole number from 1 to 65536' })
  @Max(65536, { message: 'memory-gb must be a whole number from 1 to 65536' })
  memoryGb: number;

  @IsInt({ message: 'disk-gb must be a whole number from 1 to 10000000' })
  @Min(1, { message: 'disk-gb must be a whole number from 1 to 10000000' })
  @Max(10_000_000, { message: 'disk-gb must be a whole number from 1 to 10000000' })
  diskGb: number;

  @IsNumber({}, { message: 'cpu-overcommit must be a number from 1 to 64 (two decimals at most)' })
  @Min(1, { message: 'cpu-overcommit must be a number from 1 to 64 (two decimals at most)' })
  @Max(64, { message: 'cpu-overcommit must be a number from 1 to 64 (two decimals at most)' })
  cpuOvercommit: number;

  @IsOptional()
  @IsIP(undefined, { message: 'vnc-listen must be an IP address' })
  vncListen?: string;
}

/** The operator's host:add: the hypervisor must answer; it gets the storage pool and every image before it takes VPSes. */
@Injectable()
export class HostAddCommand extends CliCommand {
  readonly name = 'host:add';
  readonly usage =
    'host:add --name <name> --region <region> --uri <libvirt URI> --vcpus N --memory-gb N --disk-gb N [--cpu-overcommit 1] [--vnc-listen <address>]';
  readonly options = ['name', 'region', 'uri', 'vcpus', 'memory-gb', 'disk-gb', 'cpu-overcommit', 'vnc-listen'];

  constructor(private readonly hosts: HostsService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const input = await validateInput(AddHostInput, {
      name: requireArg(args, 'name'),
      region: requireArg(args, 'region'),
      uri: requireArg(args, 'uri'),
      vcpus: whole(requireArg(args, 'vcpus')),
      memoryGb: whole(requireArg(args, 'memory-gb')),
      diskGb: whole(requireArg(args, 'disk-gb')),
      cpuOvercommit: decimal(args['cpu-overcommit'] ?? '1'),
      vncListen: args['vnc-listen'],
    });
    const { memoryGb, vncListen: listen, ...rest } = input;
    return [await this.hosts.add({ ...rest, memoryMb: memoryGb * 1024, vncListen: listen ?? null })];
  }
}

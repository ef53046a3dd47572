import { Injectable } from '@nestjs/common';
import { DemoContext, DemoSeeder } from '@app/core';
import { parsePublicKey } from './public-key-parser';
import { SshKey } from './ssh-key.entity';

const DEMO_KEYS = [
  ['laptop', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM/fI83YjYxXfrHeJPUEuoUqiQYkgOMSzvO3CyN8qhJ/ demo@laptop'],
  ['ci runner', 'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBDRSGbYaIq1wA06uzTZBxDU7mbAs/97MTy14/1kbz2qyPSBgaMrB0dHfE5in2jOSalVvHB0pX7M2HXtrKnmuAn0= ci@runner'],
] as const;

@Injectable()
export class SshKeysDemoSeeder extends DemoSeeder {
  readonly order = 50;

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    for (const [name, line] of DEMO_KEYS) await manager.insert(SshKey, { accountId, name, ...parsePublicKey(line) });
  }
}

import { Injectable } from '@nestjs/common';
import { DemoContext, DemoSeeder } from '@app/core';
import { parsePublicKey } from './public-key-parser';
import { SshKeysRepository } from './ssh-keys.repository';

// Public halves only: no private key for these exists anywhere.
const DEMO_KEYS = [
  ['laptop', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPmfroQ5X/hvzDUHLkJAwYtggu3T3Ai3LLFsaRrwWH6Z demo@laptop'],
  [
    'ci runner',
    'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBB+4hDwThp8Tc2Z2mi41E0inr8HmXw4piPaZ+HHRwMiRMwdqOTZHSFLnAik5W/+q1VqASAbNgqhdquRvhizBb0E= ci@runner',
  ],
] as const;

@Injectable()
export class SshKeysDemoSeeder extends DemoSeeder {
  readonly order = 50;

  constructor(private readonly keys: SshKeysRepository) {
    super();
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    for (const [name, line] of DEMO_KEYS) await this.keys.insert(manager, accountId, name, parsePublicKey(line));
  }
}

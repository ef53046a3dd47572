import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SecretBox } from '@app/core';
import { generateHostKey, SshHostKeyPair } from './ssh-host-key';
import { HostKeySystem, HostKeysRepository } from './host-keys.repository';

/**
 * The SSH host keys the API makes for a VPS, so that a rebuild or a restore answers with the same
 * key and a client can check the first connection against the service's `instance.ssh.hostKeys`.
 * The rescue system gets a key of its own for each rescue: the customer can tell which system answers.
 */
@Injectable()
export class VpsHostKeys {
  constructor(
    private readonly keys: HostKeysRepository,
    private readonly box: SecretBox,
  ) {}

  /** Gives the VPS's system a key if it has none (a VPS made before the API kept keys gets one at its next rebuild); returns its public key. */
  async ensure(manager: EntityManager, serviceId: string): Promise<string> {
    return (await this.keys.find(serviceId, 'vps', manager))?.publicKey ?? (await this.put(manager, serviceId, 'vps', false));
  }

  /** A new key for the rescue system about to boot. */
  async renewRescue(manager: EntityManager, serviceId: string): Promise<void> {
    await this.put(manager, serviceId, 'rescue', true);
  }

  /** The key pairs a seed hands to cloud-init (none recorded: cloud-init makes its own, as before). */
  async forSeed(serviceId: string, system: HostKeySystem): Promise<SshHostKeyPair[]> {
    const stored = await this.keys.find(serviceId, system);
    return stored ? [{ type: 'ed25519', publicKey: stored.publicKey, privateKey: this.box.open(stored.privateKeySealed) }] : [];
  }

  /** A terminated VPS's keys: nothing will answer with them again. */
  async forget(manager: EntityManager, serviceId: string): Promise<void> {
    await this.keys.remove(manager, serviceId);
  }

  private put(manager: EntityManager, serviceId: string, system: HostKeySystem, replace: boolean): Promise<string> {
    const pair = generateHostKey(system === 'rescue' ? 'rescue' : 'vps');
    return this.keys.put(
      manager,
      serviceId,
      system,
      { publicKey: pair.publicKey, privateKeySealed: this.box.seal(pair.privateKey) },
      replace,
    );
  }
}

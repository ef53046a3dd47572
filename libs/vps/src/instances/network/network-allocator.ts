import { createHash, randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, ipv4ToNumber, Problem } from '@app/core';
import type { GuestNetwork } from '../../compute/compute-provider';
import { Candidates, NetworkLeasesRepository } from './network-leases.repository';

const ATTEMPTS = 20;

/**
 * Hands each new VPS its way in, as NETWORK_MODE says: `user`, a loopback port of its hypervisor
 * forwarded to the guest's port 22; `bridge`, public addresses from NETWORK_IPV4_POOL (and
 * NETWORK_IPV6_POOL). Leases live in the caller's transaction, unique by the table's key.
 */
@Injectable()
export class NetworkAllocator {
  constructor(
    private readonly config: AppConfig,
    private readonly leases: NetworkLeasesRepository,
  ) {}

  /**
   * `where`: the VPS's region, or `host:<id>` for one placed on a host (each hypervisor forwards its own ports);
   * `avoidPort`: a forwarded port not to take (the one a live-moving VPS's old machine still holds).
   */
  async allocate(manager: EntityManager, serviceId: string, where: string, avoidPort?: number): Promise<GuestNetwork> {
    const { network } = this.config;
    const mac = macAddressOf(serviceId);
    if (network.mode === 'user') {
      const { from, to } = network.sshPorts;
      const port = await this.take(
        manager,
        serviceId,
        { scope: `ssh-port:${where}`, valueOf: 'v::text', from, to, skip: avoidPort ? [avoidPort] : [] },
        'NETWORK_SSH_PORTS',
      );
      return { mode: 'user', mac, sshHost: network.sshListen, sshPort: Number(port) };
    }
    let ipv4: { address: string; prefix: number; gateway: string } | null = null;
    for (const pool of network.ipv4Pools) {
      const address = await this.take(
        manager,
        serviceId,
        { scope: 'ipv4', valueOf: `host('0.0.0.0'::inet + v)`, from: pool.first, to: pool.last, skip: [ipv4ToNumber(pool.gateway)] },
        null,
      );
      if (address) {
        ipv4 = { address, prefix: pool.prefix, gateway: pool.gateway };
        break;
      }
    }
    if (!ipv4) throw Problem.conflict('quota_exceeded', 'No IPv4 address is free in NETWORK_IPV4_POOL.');
    const v6 = network.ipv6Pool;
    const ipv6 = v6
      ? {
          address: await this.take(
            manager,
            serviceId,
            // host() of an inet is the address's canonical text (RFC 5952), the form it is shown and leased in.
            { scope: 'ipv6', valueOf: `host(('${v6.prefix64}::' || to_hex(v))::inet)`, from: 0x100, to: 0xffff, skip: [] },
            'NETWORK_IPV6_POOL',
          ),
          prefix: 64,
          gateway: v6.gateway,
        }
      : null;
    return {
      mode: 'bridge',
      mac,
      bridge: network.bridge,
      ipv4,
      ipv6: ipv6 as { address: string; prefix: number; gateway: string } | null,
      dns: network.dns,
    };
  }

  release(manager: EntityManager, serviceId: string): Promise<void> {
    return this.leases.release(manager, serviceId);
  }

  /** One value of the range; null when the range is full and `full` names no variable (the next pool is tried). */
  private async take(
    manager: EntityManager,
    serviceId: string,
    range: Omit<Candidates, 'start'>,
    full: string | null,
  ): Promise<string | null> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const taken = await this.leases.take(manager, serviceId, { ...range, start: range.from + randomInt(range.to - range.from + 1) });
      if (taken === 'full') {
        if (full === null) return null;
        throw Problem.conflict('quota_exceeded', `No free value is left in ${full}.`);
      }
      if (taken !== null) return taken;
    }
    throw Problem.conflict('invalid_state', 'Could not allocate a network address: too many concurrent allocations; try again.');
  }
}

/** A stable locally administered MAC per VPS (QEMU's 52:54:00 prefix). */
export function macAddressOf(serviceId: string): string {
  const bytes = createHash('sha256').update(serviceId).digest().subarray(0, 3);
  return ['52', '54', '00', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))].join(':');
}

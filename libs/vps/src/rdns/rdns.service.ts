import { isIPv6 } from 'node:net';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, canonicalIpv6, Principal, Problem, TransactionRunner, ActivityLog } from '@app/core';
import { defaultPtr, ptrName, ReverseDns } from '@app/dns';
import { InstanceAddressResponse } from '../service-kind/dto/instance-summary.response';
import { hostnameOf } from '../instances/guest-setup';
import { SetReverseDnsRequest } from './dto/rdns.request';
import { PtrSyncJob } from './ptr-sync.job';
import { PtrsRepository } from './ptrs.repository';

/** Reverse DNS of a VPS's public addresses (docs/decisions/dns.md). */
@Injectable()
export class RdnsService {
  constructor(
    private readonly ptrs: PtrsRepository,
    private readonly reverse: ReverseDns,
    private readonly sync: PtrSyncJob,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly config: AppConfig,
  ) {}

  /** A terminated VPS: the PTRs its owner set are forgotten and its addresses written again (none, or their next holder's). */
  async release(manager: EntityManager, serviceId: string): Promise<void> {
    await this.sync.enqueue(manager, await this.ptrs.forget(manager, serviceId, !!this.config.dns.defaultPtrDomain));
  }

  /** New VPSes' public addresses get their default PTR (when DNS_DEFAULT_PTR_DOMAIN is set). */
  async assigned(manager: EntityManager, serviceIds: string[]): Promise<void> {
    if (this.config.dns.defaultPtrDomain) await this.sync.enqueue(manager, await this.ptrs.publicAddresses(manager, serviceIds));
  }

  async set(caller: Principal, serviceId: string, input: SetReverseDnsRequest): Promise<InstanceAddressResponse> {
    const ip = isIPv6(input.ip) ? canonicalIpv6(input.ip) : input.ip;
    const custom = input.ptr === null ? null : ptrName(input.ptr);
    try {
      return await this.tx.run(async (m) => {
        const vps = await this.ptrs.targetForAccount(m, caller.accountId, serviceId);
        if (!vps) throw Problem.notFound('Service');
        if (vps.status === 'terminated' || vps.status === 'cancelled')
          throw Problem.conflict('invalid_state', `The service is ${vps.status}.`);
        if (vps.networkMode === 'user')
          throw Problem.conflict('unsupported_network_mode', 'The VPS has no public address (user networking): there is no PTR to set.');
        if (ip !== vps.ipv4 && ip !== vps.ipv6)
          throw new Problem(400, 'invalid_input', `${input.ip} is not an address of this VPS.`, [
            { field: 'ip', message: `must be one of the VPS's addresses (${[vps.ipv4, vps.ipv6].filter(Boolean).join(', ')})` },
          ]);
        const ptr = custom ?? defaultPtr(hostnameOf(vps.name, vps.id), this.config.dns.defaultPtrDomain);
        await this.ptrs.set(m, serviceId, ip, custom);
        await this.reverse.publish(m, ip, ptr);
        await this.activity.record(m, {
          accountId: caller.accountId,
          caller,
          action: 'instance.rdns_update',
          entity: { type: 'service', id: serviceId },
          details: { ip, ptr: custom },
        });
        return { ip, ptr };
      });
    } catch (err) {
      await this.sync.afterFailure(ip, err);
      throw err;
    }
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { isUniqueViolation, Problem } from '@app/core';
import { ImagesRepository } from '../images/images.repository';
import type { HostRow, HostState, NewHost } from '../hosts/host.entity';
import { HostSetup } from '../compute/host-setup';
import { HostsRepository } from '../hosts/hosts.repository';
import { vcpuLimit } from '../hosts/placement';

/** A host as `host:list` shows it: capacity, what is used and free, state, VPS count. */
export interface HostListing {
  name: string;
  region: string;
  uri: string;
  state: HostState;
  vcpus: { total: number; used: number; free: number };
  memoryMb: { total: number; used: number; free: number };
  diskGb: { total: number; used: number; free: number };
  vpsCount: number;
}

/** The operator's hosts: added after their hypervisor answered and got every image, listed, set, removed when empty. */
@Injectable()
export class HostsService {
  private readonly logger = new Logger('Hosts');

  constructor(
    private readonly hosts: HostsRepository,
    private readonly setup: HostSetup,
    private readonly images: ImagesRepository,
  ) {}

  async add(host: NewHost): Promise<HostListing & { imagesCopied: number }> {
    if (await this.hosts.byName(host.name)) throw Problem.conflict('invalid_state', `A host named ${host.name} exists already.`);
    // The hypervisor's refusals (ComputeProviderError) reach the command line, which prints their problem (vps.problems.ts).
    await this.setup.check(host.uri);
    const copied = await this.setup.prepare(host.uri, await this.images.disks());
    let row: HostRow;
    try {
      row = await this.hosts.insert(host);
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('invalid_state', `A host named ${host.name} exists already.`);
      throw err;
    }
    this.logger.log(`Host ${host.name} (${host.region}) added with ${copied} image(s) copied to it`);
    return { ...listingOf(row), imagesCopied: copied };
  }

  async list(): Promise<HostListing[]> {
    return (await this.hosts.list()).map(listingOf);
  }

  async set(name: string, state: HostState): Promise<HostListing> {
    if (!(await this.hosts.setState(name, state))) throw Problem.notFound('Host');
    return listingOf((await this.hosts.byName(name))!);
  }

  async remove(name: string): Promise<{ name: string; removed: true }> {
    const outcome = await this.hosts.removeEmpty(name);
    if (outcome === 'missing') throw Problem.notFound('Host');
    if (outcome === 'holds_vps') throw Problem.conflict('invalid_state', `Host ${name} holds VPSes; move or terminate them first.`);
    return { name, removed: true };
  }
}

export function listingOf(row: HostRow): HostListing {
  const of = (total: number, used: number) => ({ total, used, free: total - used });
  return {
    name: row.name,
    region: row.region,
    uri: row.uri,
    state: row.state,
    vcpus: of(vcpuLimit(row), row.usedVcpus),
    memoryMb: of(row.memoryMb, row.usedMemoryMb),
    diskGb: of(row.diskGb, row.usedDiskGb),
    vpsCount: row.vpsCount,
  };
}

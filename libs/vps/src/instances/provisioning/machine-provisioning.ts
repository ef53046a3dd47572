import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Problem } from '@app/core';
import type { VpsSpecs } from '@app/products';
import { ComputeProvider, ComputeProviderError, GuestNetwork, MachineRecord, MachineSpec } from '../../compute/compute-provider';
import { bootOf, GuestPlan, hostnameOf } from '../guest-setup';
import { HostPlacement } from '../../hosts/host-placement';
import { NetworkAllocator } from '../network/network-allocator';
import { PROVISION_LEASE_SECONDS, VpsProvisioningJob } from './vps-provisioning.job';
import { VpsProvisioningRepository } from './vps-provisioning.repository';
import { VpsInstancesRepository } from '../vps-instances.repository';
import type { PowerState } from '../../vps.types';

export interface MachinePlan {
  region: string;
  specs: VpsSpecs;
  powerState: PowerState;
  /** Adopt this existing machine instead of creating one (a single VPS). */
  providerRef?: string;
  /** Install this image (a disk and a cloud-init seed); without it the machine has no disk. */
  guest?: GuestPlan;
  /** The caller runs the jobs itself and waits (the operator's command): the queue starts them only if it dies. */
  waiting?: boolean;
}

/** What the response shows of a new VPS. */
export interface InstanceSummary {
  powerState: PowerState;
  ipv4: string | null;
  ipv6: string | null;
  region: string;
  sshHost: string | null;
  sshPort: number | null;
}

interface InstanceDefaults {
  region: string;
  powerState: PowerState;
  imageId: string | null;
  diskGb: number | null;
}

const DOC_V4_NETS = ['192.0.2', '198.51.100', '203.0.113'];

/**
 * The hypervisor side of provisioning (the operator's command). A VPS's machine is made by a
 * durable job queued in the transaction that writes the VPS, so no row lock is held
 * while the hypervisor works and nothing is made for rows that do not commit; until the job ends
 * the VPS is `provisioning`. An existing machine is adopted at once, before the rows are written.
 */
@Injectable()
export class MachineProvisioning {
  constructor(
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
    private readonly network: NetworkAllocator,
    private readonly provisioning: VpsProvisioningRepository,
    private readonly job: VpsProvisioningJob,
    private readonly placement: HostPlacement,
  ) {}

  async adopt(manager: EntityManager, serviceId: string, plan: MachinePlan & { providerRef: string }): Promise<MachineRecord | null> {
    let record: MachineRecord | null;
    try {
      record = await this.compute.adoptMachine({ serviceId, providerRef: null, region: plan.region }, plan.providerRef);
    } catch (err) {
      if (!(err instanceof ComputeProviderError) || err.code !== 'not_found' || err.retryable) throw err;
      throw new ComputeProviderError('no_machine', `No machine ${plan.providerRef} on the hypervisor.`);
    }
    if (record && (await this.instances.machineTaken(manager, record.providerRef)))
      throw Problem.conflict('invalid_state', `Machine ${record.providerRef} already belongs to a service.`);
    return record;
  }

  /**
   * The VPS rows, after the services' rows: addresses from the machine's network (user mode has no
   * public address, only the forwarded SSH port); without one (the simulator) documentation
   * addresses stand in. Returns what each shows, and the ids whose machine a job makes.
   */
  async record(
    manager: EntityManager,
    ids: string[],
    names: string[],
    defaults: InstanceDefaults,
    plan: MachinePlan | null,
    adopted: MachineRecord | null,
  ): Promise<{ summaries: Map<string, InstanceSummary>; queued: string[] }> {
    const queued = plan && !plan.providerRef && this.compute.makesMachines ? ids : [];
    const networks = new Map<string, GuestNetwork>();
    // Capacity and leases are rows of this transaction: a failed batch (no_capacity) gives them back with the rest.
    const hosts = plan && !plan.providerRef ? await this.place(manager, ids, plan) : new Map<string, string>();
    for (const id of queued) {
      const scope = hosts.has(id) ? `host:${hosts.get(id)}` : defaults.region;
      const network = await this.compute.networkFor(() => this.network.allocate(manager, id, scope));
      if (network) networks.set(id, network);
    }
    const summaries = ids.map((id) =>
      summaryOf(networks.get(id) ?? null, queued.length ? 'provisioning' : (adopted?.powerState ?? defaults.powerState), defaults.region),
    );
    await this.instances.insertMany(manager, {
      serviceIds: ids,
      region: defaults.region,
      powerStates: summaries.map((s) => s.powerState),
      providerRefs: ids.map(() => adopted?.providerRef ?? null),
      ipv4: summaries.map((s) => s.ipv4),
      ipv6: summaries.map((s) => s.ipv6),
      sshHosts: summaries.map((s) => s.sshHost),
      sshPorts: summaries.map((s) => s.sshPort),
      networks: ids.map((id) => networks.get(id) ?? null),
      hostIds: ids.map((id) => hosts.get(id) ?? null),
      imageId: defaults.imageId,
      diskGb: defaults.diskGb,
    });
    if (queued.length && plan) {
      const specs = queued.map((id, i): MachineSpec => ({
        vcpus: plan.specs.vcpus,
        memoryMb: plan.specs.memoryMb,
        powerOn: plan.powerState === 'running',
        boot: plan.guest && bootOf(plan.guest, `iid-${id}`, hostnameOf(names[i], id)),
        network: networks.get(id),
      }));
      await this.provisioning.insertMany(manager, queued, specs);
      for (const id of queued) await this.job.enqueue(manager, id, plan.waiting ? PROVISION_LEASE_SECONDS : undefined);
    }
    return { summaries: new Map(ids.map((id, i) => [id, summaries[i]])), queued };
  }

  /** Each new VPS's host, by service id; none where the region has no host in the table. */
  private async place(manager: EntityManager, ids: string[], plan: MachinePlan): Promise<Map<string, string>> {
    const need = { vcpus: plan.specs.vcpus, memoryMb: plan.specs.memoryMb, diskGb: plan.specs.diskGb };
    const hosts = new Map<string, string>();
    for (const id of ids) {
      const host = await this.placement.place(manager, id, plan.region, need);
      if (host) hosts.set(id, host.id);
    }
    return hosts;
  }

  /** The services among these whose machine is made by a provisioning job. */
  async queued(serviceIds: string[]): Promise<string[]> {
    return [...(await this.provisioning.states(serviceIds)).keys()];
  }

  /** Runs the queued provisionings to their end here; returns each VPS's power state then. */
  async finish(serviceIds: string[]): Promise<Map<string, { powerState: PowerState; error: string | null }>> {
    await this.job.runToEnd(serviceIds);
    const states = await this.provisioning.states(serviceIds);
    return new Map(
      [...states].map(([id, state]) => [id, { powerState: state.powerState, error: state.status === 'failed' ? state.lastError : null }]),
    );
  }
}

function summaryOf(network: GuestNetwork | null, powerState: PowerState, region: string): InstanceSummary {
  if (network?.mode === 'user') return { powerState, region, ipv4: null, ipv6: null, sshHost: network.sshHost, sshPort: network.sshPort };
  const ipv4 = network ? network.ipv4.address : `${DOC_V4_NETS[randomInt(DOC_V4_NETS.length)]}.${randomInt(1, 255)}`;
  const ipv6 = network
    ? (network.ipv6?.address ?? null)
    : `2001:db8:${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}::1`;
  return { powerState, region, ipv4, ipv6, sshHost: ipv4, sshPort: 22 };
}

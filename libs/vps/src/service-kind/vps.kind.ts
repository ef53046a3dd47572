import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, Problem } from '@app/core';
import type { VpsSpecs } from '@app/products';
import { NewServiceBatch, ServiceKind, ServiceKinds, ServiceResponse, ServiceState } from '@app/services';
import type { MachineRecord } from '../compute/compute-provider';
import { GuestPlan, GuestSetup } from '../instances/guest-setup';
import { MachinePlan, MachineProvisioning } from '../instances/provisioning/machine-provisioning';
import { PowerStateSync } from '../instances/power-state/power-state-sync';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { PowerState, publicPowerState, VPS_REGIONS } from '../vps.types';
import { INSTANCE_PART, InstanceSummaryResponse } from './dto/instance-summary.response';
import { instancePart } from './instance-part';
import { checkVpsSpec, sshKeysOf, VPS_SPEC_OPTIONS, VpsProvisionSpec } from './vps-provision-spec';
import { VpsTermination } from './vps-termination';
import { RdnsService } from '../rdns/rdns.service';
import { VpsHostKeys } from '../host-keys/vps-host-keys';

interface VpsBatchPlan {
  region: string;
  powerState: PowerState;
  diskGb: number;
  guest?: GuestPlan;
  machine: MachinePlan | null;
  adopted: MachineRecord | null;
}

/** A VPS as a kind of service: its instance row, its machine (made by a durable job), and the `instance` of its response. */
@Injectable()
export class VpsKind extends ServiceKind<VpsBatchPlan, InstanceSummaryResponse> implements OnModuleInit {
  readonly type = 'vps';
  readonly part = INSTANCE_PART;
  override readonly options = VPS_SPEC_OPTIONS;

  constructor(
    private readonly kinds: ServiceKinds,
    private readonly machines: MachineProvisioning,
    private readonly guests: GuestSetup,
    private readonly instances: VpsInstancesRepository,
    private readonly termination: VpsTermination,
    private readonly sync: PowerStateSync,
    private readonly rdns: RdnsService,
    private readonly config: AppConfig,
    private readonly hostKeys: VpsHostKeys,
  ) {
    super();
  }

  onModuleInit(): void {
    this.kinds.register(this);
  }

  override checkSpec(spec: VpsProvisionSpec, count: number): void {
    checkVpsSpec(spec, count);
  }

  /** The image and keys (checked before anything is written), and an adopted machine, looked up before the services rows lock the account's counters. */
  override async prepare(manager: EntityManager, { accountId, ids, status, product, spec }: NewServiceBatch): Promise<VpsBatchPlan> {
    const vps = spec as VpsProvisionSpec;
    const specs = product.specs as VpsSpecs;
    const guest = vps.image
      ? await this.guests.plan(manager, accountId, { image: vps.image, diskGb: specs.diskGb, sshKeyIds: sshKeysOf(vps.sshKeys) })
      : undefined;
    const region = vps.region ?? VPS_REGIONS[0];
    const powerState: PowerState = vps.powerState ?? (status === 'active' ? 'running' : 'stopped');
    const live = status !== 'cancelled' && status !== 'terminated';
    const machine: MachinePlan | null =
      (vps.machines || vps.providerRef) && live
        ? { region, specs, powerState, providerRef: vps.providerRef, guest, waiting: vps.wait !== false }
        : null;
    const adopted =
      machine?.providerRef !== undefined
        ? await this.machines.adopt(manager, ids[0], { ...machine, providerRef: machine.providerRef })
        : null;
    return { region, powerState, diskGb: specs.diskGb, guest, machine, adopted };
  }

  async provision(
    manager: EntityManager,
    { ids, names, status }: NewServiceBatch,
    plan: VpsBatchPlan | undefined,
  ): Promise<Map<string, InstanceSummaryResponse>> {
    const { region, powerState, diskGb, guest, machine, adopted } = plan!;
    const defaults = { region, powerState, imageId: guest?.image.id ?? null, diskGb };
    const { summaries } = await this.machines.record(manager, ids, names, defaults, machine, adopted);
    await this.rdns.assigned(manager, ids);
    const terminated = status === 'terminated';
    // Made with the VPS (the simulator's too), so the service shows them from its first response.
    const hostKeys = new Map<string, string>();
    if (guest && !terminated) for (const id of ids) hostKeys.set(id, await this.hostKeys.ensure(manager, id));
    const nameOf = new Map(ids.map((id, i) => [id, names[i]]));
    return new Map(
      [...summaries].map(([id, summary]) => [
        id,
        instancePart({ ...summary, terminated, id, name: nameOf.get(id), hostKey: hostKeys.get(id) }, this.config.dns.defaultPtrDomain),
      ]),
    );
  }

  /** With `wait` (the default), the machines queued are made here; a machine that could not be made is a 409. */
  override async provisioned(services: ServiceResponse[], spec: VpsProvisionSpec): Promise<void> {
    const vpsIds = services.filter((service) => service.instance).map((service) => service.id);
    const queued = new Set(spec.wait !== false && vpsIds.length ? await this.machines.queued(vpsIds) : []);
    const made = services.filter((service) => queued.has(service.id));
    if (!made.length) return;
    const ended = await this.machines.finish(made.map((service) => service.id));
    for (const service of made) service.instance!.powerState = publicPowerState(ended.get(service.id)?.powerState ?? 'provisioning');
    const failed = made.filter((service) => ended.get(service.id)?.powerState === 'error');
    if (failed.length) {
      const why = ended.get(failed[0].id)?.error ?? 'unknown error';
      throw Problem.conflict(
        'invalid_state',
        `The machine of ${failed.length} of ${made.length} VPS(es) could not be made (${failed.map((f) => f.id).join(', ')}; ${why}). ` +
          'They show powerState stopped, with an instance_fault notification, and nothing is left on the hypervisor; terminate them with service:set-status.',
      );
    }
  }

  override terminate(manager: EntityManager, service: ServiceState): Promise<void> {
    return this.termination.terminate(manager, service.id);
  }

  /** The power state as the hypervisor reports it now (where machines change on their own). */
  override refresh(accountId: string, serviceId: string): Promise<void> {
    return this.sync.refreshForAccount(accountId, serviceId);
  }

  async summaries(serviceIds: string[], manager?: EntityManager): Promise<Map<string, InstanceSummaryResponse>> {
    const rows = await this.instances.summaries(serviceIds, manager);
    return new Map(rows.map((row) => [row.id, instancePart(row, this.config.dns.defaultPtrDomain)]));
  }
}

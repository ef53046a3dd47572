import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, Problem } from '@app/core';
import type { CatalogProduct, VolumeSpecs } from '@app/products';
import { NewServiceBatch, ProvisionSpecError, ServiceKind, ServiceKinds, ServiceResponse, ServiceState } from '@app/services';
import { ComputeProvider, instanceRef } from '../compute/compute-provider';
import { VolumeBackend } from '../compute/volumes/volume-backend';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { VPS_REGIONS } from '../vps.types';
import { VOLUME_PART, VolumeSummaryResponse } from './dto/volume-summary.response';
import { volumePart } from './volume-part';
import { checkVolumeSpec, sizeWithin, VOLUME_SPEC_OPTIONS, VolumeProvisionSpec } from './volume-provision-spec';
import { VolumesRepository } from './volumes.repository';

/**
 * A volume as a kind of service: its row (size, region, the VPS it is on), its bytes in the
 * VolumeBackend (made by the operator's command, else by its first attach), priced per GiB, and the
 * `volume` of its response. Terminated, it leaves its VPS and its bytes go after BACKUP_TERMINATED_GRACE_HOURS.
 */
@Injectable()
export class VolumeKind extends ServiceKind<number, VolumeSummaryResponse> implements OnModuleInit {
  readonly type = 'volume';
  readonly part = VOLUME_PART;
  override readonly options = VOLUME_SPEC_OPTIONS;
  private readonly logger = new Logger('Volumes');

  constructor(
    private readonly kinds: ServiceKinds,
    private readonly volumes: VolumesRepository,
    private readonly backend: VolumeBackend,
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
    private readonly config: AppConfig,
  ) {
    super();
  }

  onModuleInit(): void {
    this.kinds.register(this);
  }

  override checkSpec(spec: VolumeProvisionSpec): void {
    checkVolumeSpec(spec);
  }

  override quantity(spec: VolumeProvisionSpec, product: CatalogProduct): number {
    return this.sizeFor(spec, product);
  }

  override prepare(_manager: EntityManager, { spec, product }: NewServiceBatch): Promise<number> {
    return Promise.resolve(this.sizeFor(spec, product));
  }

  async provision(
    manager: EntityManager,
    { ids, spec }: NewServiceBatch,
    sizeGb: number | undefined,
  ): Promise<Map<string, VolumeSummaryResponse>> {
    const region = (spec as VolumeProvisionSpec).region ?? VPS_REGIONS[0];
    await this.volumes.insertMany(manager, ids, region, sizeGb!);
    return new Map(ids.map((id) => [id, volumePart({ id, region, sizeGb: sizeGb!, state: 'detached', attachedTo: null, purged: false })]));
  }

  /** The operator's command makes the bytes now; one the backend could not make is made by the volume's first attach. */
  override async provisioned(services: ServiceResponse[], spec: VolumeProvisionSpec): Promise<void> {
    if (!spec.machines || spec.status === 'terminated' || spec.status === 'cancelled') return;
    for (const service of services) {
      const { region, sizeGb } = service.volume!;
      await this.backend.create({ volumeId: service.id, region }, sizeGb).catch((err: Error) => {
        this.logger.warn(`Volume ${service.id} not made yet (its first attach makes it): ${err.message}`);
      });
    }
  }

  /** Off its VPS first (the hypervisor refusing keeps the service's status); its bytes are deleted after the grace period. */
  override async terminate(manager: EntityManager, service: ServiceState): Promise<void> {
    const volume = await this.volumes.lock(manager, service.id);
    if (!volume) return;
    if (volume.state !== 'detached' && volume.state !== 'attached')
      throw Problem.conflict('action_in_progress', `The volume is ${volume.state}; terminate it once that action ended.`);
    if (volume.attachedTo) {
      const machine = await this.instances.machineOf(volume.attachedTo, manager);
      if (machine) await this.compute.detachVolume(instanceRef(volume.attachedTo, machine), volume.id);
      await this.volumes.update(manager, volume.id, { state: 'detached', attachedTo: null });
    }
    await this.volumes.schedulePurge(manager, volume.id, this.config.backups.terminatedGraceHours);
  }

  async summaries(serviceIds: string[], manager?: EntityManager): Promise<Map<string, VolumeSummaryResponse>> {
    const rows = await this.volumes.summaries(serviceIds, manager);
    return new Map(rows.map((row) => [row.id, volumePart(row)]));
  }

  private sizeFor(spec: VolumeProvisionSpec, product: CatalogProduct): number {
    try {
      return sizeWithin(spec, product.specs as VolumeSpecs);
    } catch (err) {
      if (err instanceof ProvisionSpecError) throw Problem.invalidInput(`${err.message}.`, [{ field: err.field, message: err.reason }]);
      throw err;
    }
  }
}

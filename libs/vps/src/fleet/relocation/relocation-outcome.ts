import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, domainEvent, Publish, TransactionRunner } from '@app/core';
import { VpsInstancesRepository } from '../../instances/vps-instances.repository';
import type { InstanceEvacuatedEvent, InstanceMoveEvent } from '../../vps.events';
import { HostsRepository } from '../../hosts/hosts.repository';
import { RelocatedVpsRepository } from './relocated-vps.repository';
import { RelocationNetwork } from './relocation-network';
import { Ended, RelocationWork, VpsRelocationsRepository } from './vps-relocations.repository';

export interface Failure {
  code?: string;
  message: string | null;
}

/**
 * What the database records of a relocation's steps, each in one transaction: a copied
 * machine is on the new host (`settle`: the old host's share and SSH port go, the VPS points at the
 * new one), the relocation is done (a machine made again settles and ends at once, recorded in the
 * activity log), or it ends otherwise: rolled back (the room and port held on the new host go back,
 * the VPS stays on the old one) or failed where it is (stopped on the new host).
 * The customer is told: before and after a running VPS's copy, once a machine was made again.
 */
@Injectable()
export class RelocationOutcome {
  private readonly logger = new Logger('Relocations');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly hosts: HostsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly relocations: VpsRelocationsRepository,
    private readonly vps: RelocatedVpsRepository,
    private readonly network: RelocationNetwork,
    private readonly activity: ActivityLog,
  ) {}

  async settle(work: RelocationWork): Promise<void> {
    await this.tx.run(async (m) => {
      await this.hosts.settleMove(m, work.serviceId, work.toHostId!);
      await this.network.settle(m, work.serviceId, work.fromHostId, work.toSshPort);
    });
  }

  async succeeded(work: RelocationWork): Promise<void> {
    await this.end(work, 'succeeded', { message: null }, async (m, publish) => {
      await this.instances.setPowerState(m, work.serviceId, work.wasRunning ? 'running' : 'stopped');
      this.told(work, publish, 'running');
    });
    this.logger.log(`VPS ${work.serviceId} moved from ${work.fromHost} to ${work.toHost}`);
  }

  /** The machine was made again on the new host: the VPS points there, in the state it had, and its customer is told how. */
  async recreated(work: RelocationWork): Promise<void> {
    const { disk, network, powerState } = work.plan!;
    const outcome = ({ disk: 'restarted', backup: 'restored', image: 'rebuilt' } as const)[disk.from];
    const payload: InstanceEvacuatedEvent['payload'] = {
      serviceId: work.serviceId,
      serviceName: work.serviceName,
      outcome,
      backupId: disk.from === 'backup' ? disk.backup.id : null,
      backupAt: disk.from === 'backup' ? disk.backup.createdAt : null,
      image: disk.from === 'image' ? disk.imageName : null,
      powerState,
    };
    await this.end(work, 'succeeded', { message: null }, async (m, publish) => {
      await this.hosts.settleMove(m, work.serviceId, work.toHostId!);
      await this.network.settleRecreated(m, work.serviceId, work.fromHostId, network);
      await this.vps.settleInstance(m, work.serviceId, network, powerState);
      await this.activity.record(m, {
        accountId: work.accountId,
        action: 'instance.evacuate',
        entity: { type: 'service', id: work.serviceId },
        actor: { type: 'system', id: null, name: null },
        details: { outcome, backupId: payload.backupId, backupAt: payload.backupAt, image: payload.image },
      });
      publish(domainEvent<InstanceEvacuatedEvent>('instance.evacuated', work.accountId, payload));
    });
    this.logger.log(`VPS ${work.serviceId} made again from ${work.fromHost} on ${work.toHost}: ${outcome}`);
  }

  /**
   * The VPS stays where it was: stopped after a cold copy, running after a live one (it never stopped; its
   * customer was not told of it), in its last known state when it was to be made again.
   */
  async rolledBack(work: RelocationWork, error: Failure): Promise<void> {
    await this.end(work, 'rolled_back', error, async (m, publish) => {
      await this.giveBack(m, work);
      await this.instances.setPowerState(m, work.serviceId, work.live ? 'running' : (work.plan?.powerState ?? 'stopped'));
      if (!work.live) this.told(work, publish, 'stopped');
    });
    this.logger.warn(`Relocation of VPS ${work.serviceId} to ${work.toHost} rolled back: it stays on ${work.fromHost} (${error.message})`);
  }

  /** A copied machine is on the new host (settled) but could not be started there, or the copy ended there. */
  async stoppedThere(work: RelocationWork, error: Failure): Promise<void> {
    await this.end(work, 'failed', error, async (m, publish) => {
      await this.instances.setPowerState(m, work.serviceId, 'stopped');
      this.told(work, publish, 'stopped');
    });
    this.logger.warn(`Move of VPS ${work.serviceId} ended on ${work.toHost} with the VPS stopped (${error.message})`);
  }

  /** The VPS was terminated meanwhile: what the relocation held on the new host goes back, unless it had settled there. */
  async abandoned(work: RelocationWork, settled: boolean): Promise<void> {
    await this.end(work, 'failed', { code: 'terminated', message: 'The VPS was terminated during its move.' }, async (m) => {
      if (!settled) await this.giveBack(m, work);
    });
  }

  private async giveBack(m: EntityManager, work: RelocationWork): Promise<void> {
    if (work.toHostId) await this.hosts.reserve(m, work.toHostId, work.need, -1);
    await this.network.undo(m, work.serviceId, work.toHostId);
  }

  /** A running VPS's copy: its customer was told before a cold one, and is told how either ended. */
  private told(work: RelocationWork, publish: Publish, outcome: 'running' | 'stopped'): void {
    if (work.source !== 'copy' || !work.wasRunning) return;
    const payload = { serviceId: work.serviceId, serviceName: work.serviceName, moveId: work.id, outcome, live: work.live };
    publish(domainEvent<InstanceMoveEvent>('instance.move_finished', work.accountId, payload));
  }

  private async end(
    work: RelocationWork,
    status: Ended,
    error: Failure,
    then: (m: EntityManager, publish: Publish) => Promise<void>,
  ): Promise<void> {
    await this.tx.run(async (m, publish) => {
      if (await this.relocations.finish(m, work.id, status, error)) await then(m, publish);
    });
  }
}

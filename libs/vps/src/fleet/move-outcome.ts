import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { domainEvent, Publish, TransactionRunner } from '@app/core';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import type { InstanceMoveEvent } from '../vps.events';
import { HostsRepository } from '../hosts/hosts.repository';
import { MoveNetwork } from './move-network';
import { MoveWork, VpsMovesRepository } from './vps-moves.repository';

/**
 * What the database records of a move's steps, each in one transaction: the machine is
 * on the new host (`settle`: the old host's share and SSH port go, the VPS points at the new one),
 * the move is done, or it ends otherwise: rolled back (the room and port held on the new host go
 * back, the VPS stopped on the old one) or failed where it is (stopped on the new host).
 */
@Injectable()
export class MoveOutcome {
  private readonly logger = new Logger('VpsMoves');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly hosts: HostsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly moves: VpsMovesRepository,
    private readonly network: MoveNetwork,
  ) {}

  async settle(work: MoveWork): Promise<void> {
    await this.tx.run(async (m) => {
      await this.hosts.settleMove(m, work.serviceId, work.toHostId!);
      await this.network.settle(m, work.serviceId, work.fromHostId, work.toSshPort);
    });
  }

  async succeeded(work: MoveWork): Promise<void> {
    await this.end(work, 'succeeded', null, async (m, publish) => {
      await this.instances.setPowerState(m, work.serviceId, work.wasRunning ? 'running' : 'stopped');
      this.told(work, publish, 'running');
    });
    this.logger.log(`VPS ${work.serviceId} moved from ${work.fromHost} to ${work.toHost}`);
  }

  async rolledBack(work: MoveWork, error: string | null): Promise<void> {
    await this.end(work, 'rolled_back', error, async (m, publish) => {
      await this.giveBack(m, work);
      await this.instances.setPowerState(m, work.serviceId, 'stopped');
      this.told(work, publish, 'stopped');
    });
    this.logger.warn(`Move of VPS ${work.serviceId} to ${work.toHost} rolled back: it stays stopped on ${work.fromHost} (${error})`);
  }

  /** The machine is on the new host (settled) but could not be started there, or the move ended there. */
  async stoppedThere(work: MoveWork, error: string | null): Promise<void> {
    await this.end(work, 'failed', error, async (m, publish) => {
      await this.instances.setPowerState(m, work.serviceId, 'stopped');
      this.told(work, publish, 'stopped');
    });
    this.logger.warn(`Move of VPS ${work.serviceId} ended on ${work.toHost} with the VPS stopped (${error})`);
  }

  /** The VPS was terminated meanwhile: what the move held on the new host goes back, unless it had settled there. */
  async abandoned(work: MoveWork, settled: boolean): Promise<void> {
    await this.end(work, 'failed', 'The VPS was terminated during its move.', async (m) => {
      if (!settled) await this.giveBack(m, work);
    });
  }

  private async giveBack(m: EntityManager, work: MoveWork): Promise<void> {
    if (work.toHostId) await this.hosts.reserve(m, work.toHostId, work.need, -1);
    await this.network.undo(m, work.serviceId, work.toHostId, work.toSshPort);
  }

  private told(work: MoveWork, publish: Publish, outcome: 'running' | 'stopped'): void {
    if (!work.wasRunning) return;
    const payload = { serviceId: work.serviceId, serviceName: work.serviceName, moveId: work.id, outcome };
    publish(domainEvent<InstanceMoveEvent>('instance.move_finished', work.accountId, payload));
  }

  private async end(
    work: MoveWork,
    status: 'succeeded' | 'rolled_back' | 'failed',
    error: string | null,
    then: (m: EntityManager, publish: Publish) => Promise<void>,
  ): Promise<void> {
    await this.tx.run(async (m, publish) => {
      if (await this.moves.finish(m, work.id, status, error)) await then(m, publish);
    });
  }
}

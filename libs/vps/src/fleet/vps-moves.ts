import { Injectable } from '@nestjs/common';
import { Problem } from '@app/core';
import { HostsRepository } from '../hosts/hosts.repository';
import { MoveBegun, MoveStart } from './move-start';
import { VpsMoveJob } from './vps-move.job';
import { VpsMovesRepository } from './vps-moves.repository';

export interface MoveDone {
  id: string;
  from: string;
  to: string;
}

/**
 * The operator's moves of a VPS to another host of its region: `service:move` and each
 * VPS of a `host:drain`. The move is begun in one transaction (MoveStart: room held, record and
 * job written) and driven by its durable job (VpsMoveJob); the command runs that job in its own
 * process and waits for the record's end. A crash of the command leaves the record to the job.
 */
@Injectable()
export class VpsMoves {
  constructor(
    private readonly hosts: HostsRepository,
    private readonly start: MoveStart,
    private readonly job: VpsMoveJob,
    private readonly moves: VpsMovesRepository,
  ) {}

  /** `stopRunning`: a running VPS is stopped, moved and started again; without it only a stopped one moves. */
  async move(serviceId: string, toName: string, stopRunning = false): Promise<MoveDone> {
    const target = await this.hosts.byName(toName);
    if (!target) throw Problem.notFound('Host');
    return this.finish(await this.start.begin(serviceId, target, stopRunning), serviceId);
  }

  /** To the best other enabled host of its region (a drain); a running VPS is stopped and started again. */
  async moveAway(serviceId: string): Promise<MoveDone> {
    const running = await this.moves.runningFor(serviceId);
    const begun = running
      ? { moveId: running.id, from: running.fromHost, to: running.toHost }
      : await this.start.begin(serviceId, null, true);
    return this.finish(begun, serviceId);
  }

  private async finish(begun: MoveBegun, serviceId: string): Promise<MoveDone> {
    await this.job.runToEnd(begun.moveId);
    const record = await this.moves.find(begun.moveId);
    if (record?.status === 'succeeded') return { id: serviceId, from: begun.from, to: begun.to };
    const how =
      record?.status === 'rolled_back' ? `was rolled back: the VPS stays on ${begun.from}` : `ended on ${begun.to}, the VPS stopped`;
    throw Problem.conflict('invalid_state', `The move to ${begun.to} ${how} (${record?.lastError ?? 'no error recorded'}).`);
  }
}

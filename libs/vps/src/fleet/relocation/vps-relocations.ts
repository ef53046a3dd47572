import { Injectable } from '@nestjs/common';
import type { HostRow } from '../../hosts/host.entity';
import { HostsRepository } from '../../hosts/hosts.repository';
import { RelocationError, RelocationRefused } from './relocation-error';
import { RelocationBegun, RelocationStart, RunningMove } from './relocation-start';
import { RelocationJob } from './relocation.job';
import { RelocationRecord, VpsRelocationsRepository } from './vps-relocations.repository';

export interface MoveDone {
  id: string;
  from: string;
  to: string;
  /** `live`: the VPS ran throughout, paused for `downtimeMs` at the switch-over; `cold`: copied while stopped. */
  mode: 'live' | 'cold';
  downtimeMs: number | null;
}

/**
 * The operator's relocations of a VPS to another host of its region: `service:move` and each
 * VPS of a `host:drain` (its disk copied), each VPS of a `host:evacuate` (made again from its backup
 * or image). One is begun in one transaction (RelocationStart: room held, record and job written)
 * and driven by its durable job (RelocationJob); the command runs that job in its own process and
 * waits for the record's end. A crash of the command leaves the record to the job.
 */
@Injectable()
export class VpsRelocations {
  constructor(
    private readonly hosts: HostsRepository,
    private readonly start: RelocationStart,
    private readonly job: RelocationJob,
    private readonly relocations: VpsRelocationsRepository,
  ) {}

  /** `running`: how a running VPS moves (live, or stopped and started again); null: only a stopped one moves. */
  async move(serviceId: string, toName: string, running: RunningMove = null): Promise<MoveDone> {
    const target = await this.hosts.byName(toName);
    if (!target) throw RelocationRefused.notFound('Host');
    return this.moved(await this.start.copy(serviceId, target, running), serviceId);
  }

  /** To the best other enabled host of its region (a drain); a running VPS is moved live, or `cold`: stopped and started again. */
  async moveAway(serviceId: string, running: 'live' | 'cold' = 'live'): Promise<MoveDone> {
    const under = await this.relocations.runningFor(serviceId);
    const begun = under
      ? { relocationId: under.id, from: under.fromHost, to: under.toHost }
      : await this.start.copy(serviceId, null, running);
    return this.moved(begun, serviceId);
  }

  /**
   * Made again off a dead host, or the relocation under way toward another host finished (a run
   * that died left it); its ended record, null when the VPS is no longer on the host.
   */
  async recreate(serviceId: string, from: HostRow): Promise<RelocationRecord | null> {
    const running = await this.relocations.runningFor(serviceId);
    const id = running && running.source !== 'copy' ? running.id : (await this.start.recreate(serviceId, from))?.relocationId;
    if (!id) return null;
    await this.job.runToEnd(id);
    return (await this.relocations.find(id))!;
  }

  private async moved(begun: RelocationBegun, serviceId: string): Promise<MoveDone> {
    await this.job.runToEnd(begun.relocationId);
    const record = await this.relocations.find(begun.relocationId);
    if (record?.status === 'succeeded')
      return { id: serviceId, from: begun.from, to: begun.to, mode: record.live ? 'live' : 'cold', downtimeMs: record.downtimeMs };
    const how =
      record?.status === 'rolled_back'
        ? `was rolled back: the VPS stays on ${begun.from}${record.live ? ', running' : ''}`
        : `ended on ${begun.to}, the VPS stopped`;
    throw new RelocationError('invalid_state', `The move to ${begun.to} ${how} (${record?.lastError ?? 'no error recorded'}).`);
  }
}

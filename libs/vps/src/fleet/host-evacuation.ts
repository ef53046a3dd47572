import { Injectable, Logger } from '@nestjs/common';
import { HostsRepository } from '../hosts/hosts.repository';
import { RelocationError, RelocationRefused } from './relocation/relocation-error';
import { VpsRelocations } from './relocation/vps-relocations';
import { RelocationRecord, VpsRelocationsRepository } from './relocation/vps-relocations.repository';

/** One line of `host:evacuate` per VPS. */
export interface EvacuationLine {
  id: string;
  from: string;
  to: string | null;
  outcome: 'restarted' | 'restored' | 'rebuilt' | 'failed';
  backupId: string | null;
  error?: { code: string; message: string };
}

/** States a host may be evacuated from with --force: the operator declares it dead; nothing new goes there. */
const FORCIBLE = ['maintenance', 'disabled'];

/**
 * The operator's `host:evacuate`: every VPS still recorded on a dead host is relocated to
 * another host of its region, made again from its current disk where that is on Ceph (nothing lost),
 * else from its latest backup or, without one, from its image,
 * one after the other; the dead host is never asked anything. A VPS that cannot be (no room, no
 * image, the store cannot give its backup) stays recorded where it was and is tried again by the
 * next run; one already made again is no longer on the host and is not looked at again.
 */
@Injectable()
export class HostEvacuation {
  private readonly logger = new Logger('HostEvacuation');

  constructor(
    private readonly hosts: HostsRepository,
    private readonly relocations: VpsRelocations,
    private readonly records: VpsRelocationsRepository,
  ) {}

  async evacuate(name: string, force: boolean): Promise<EvacuationLine[]> {
    const host = await this.hosts.byName(name);
    if (!host) throw RelocationRefused.notFound('Host');
    if (host.state !== 'unreachable' && !(force && FORCIBLE.includes(host.state)))
      throw new RelocationRefused(
        'invalid_state',
        `Host ${name} is ${host.state}: only an unreachable host is evacuated (--force takes one in maintenance or disabled that you know is dead).`,
      );
    const lines: EvacuationLine[] = [];
    for (const id of await this.records.recordedOn(host.id)) {
      try {
        const ended = await this.relocations.recreate(id, host);
        if (ended) lines.push(this.lineOf(id, ended));
      } catch (err) {
        if (!(err instanceof RelocationError)) throw err;
        lines.push({ id, from: name, to: null, outcome: 'failed', backupId: null, error: { code: err.code, message: err.message } });
      }
    }
    return lines;
  }

  private lineOf(id: string, r: RelocationRecord): EvacuationLine {
    const line = { id, from: r.fromHost, to: r.toHost, backupId: r.backupId };
    if (r.status === 'succeeded')
      return { ...line, outcome: r.source === 'disk' ? 'restarted' : r.source === 'backup' ? 'restored' : 'rebuilt' };
    const error = { code: r.errorCode ?? 'evacuation_failed', message: r.lastError ?? 'no error recorded' };
    this.logger.error(`VPS ${id} not evacuated from ${r.fromHost} to ${r.toHost}: ${error.message}`);
    return { ...line, to: null, outcome: 'failed', error };
  }
}

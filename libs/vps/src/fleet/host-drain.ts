import { Injectable, Logger } from '@nestjs/common';
import { HostsRepository } from '../hosts/hosts.repository';
import { RelocationError, RelocationRefused } from './relocation/relocation-error';
import { VpsRelocations } from './relocation/vps-relocations';
import { VpsRelocationsRepository } from './relocation/vps-relocations.repository';

/** One VPS of a drain: `moved` (live or cold, and the pause a live one saw), or why it stays (`no_capacity`, `invalid_state`, ...). */
export interface DrainLine {
  id: string;
  from: string;
  to: string | null;
  outcome: string;
  mode?: 'live' | 'cold';
  downtimeMs?: number | null;
  error?: string;
}

/**
 * `host:drain`: the host goes to `maintenance` (it takes no new VPS), then every VPS
 * placed on it moves, one at a time, to the best other enabled host of its region; a running one
 * moves live (its customer told after), or with `cold` is stopped, moved and started again (told
 * before and after). A live move that fails leaves the VPS running where it was. A VPS with no room
 * elsewhere, or that cannot move now, stays and is reported. Run again, it goes on: moves still
 * running are waited for, VPSes still there are moved.
 */
@Injectable()
export class HostDrain {
  private readonly logger = new Logger('Hosts');

  constructor(
    private readonly hosts: HostsRepository,
    private readonly relocations: VpsRelocations,
    private readonly records: VpsRelocationsRepository,
  ) {}

  async drain(name: string, running: 'live' | 'cold' = 'live'): Promise<DrainLine[]> {
    const host = await this.hosts.byName(name);
    if (!host) throw RelocationRefused.notFound('Host');
    if (host.state === 'unreachable')
      throw new RelocationRefused(
        'invalid_state',
        `Host ${name} is unreachable: its VPSes cannot be moved off it (host:evacuate restores them elsewhere).`,
      );
    if (host.state !== 'maintenance') await this.hosts.setState(name, 'maintenance');
    const lines: DrainLine[] = [];
    for (const id of await this.records.placedOn(host.id)) {
      try {
        const moved = await this.relocations.moveAway(id, running);
        lines.push({ id, from: moved.from, to: moved.to, outcome: 'moved', mode: moved.mode, downtimeMs: moved.downtimeMs });
      } catch (err) {
        if (!(err instanceof RelocationError)) throw err;
        lines.push({ id, from: name, to: null, outcome: err.code, error: err.message });
      }
    }
    const left = lines.filter((line) => line.outcome !== 'moved').length;
    this.logger.log(`Host ${name} drained: ${lines.length - left} VPS(es) moved, ${left} left on it`);
    return lines;
  }
}

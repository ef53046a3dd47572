import { Injectable, Logger } from '@nestjs/common';
import { Problem } from '@app/core';
import { BackupStore } from '../backups/backup-store';
import { ComputeProvider, ComputeProviderError, InstanceRef } from '../compute/compute-provider';
import { EvacuationEnd } from './evacuation-end';
import { Claimed, EvacuationStart } from './evacuation-start';
import { HostsRepository } from '../hosts/hosts.repository';
import { EvacuatedMachine, EvacuationFailure, MachineEvacuator } from '../compute/machine-evacuator';
import { VpsEvacuationsRepository } from './vps-evacuations.repository';

/** One line of `host:evacuate` per VPS. */
export interface EvacuationLine {
  id: string;
  from: string;
  to: string | null;
  outcome: 'restored' | 'rebuilt' | 'failed';
  backupId: string | null;
  error?: { code: string; message: string };
}

/** States a host may be evacuated from with --force: the operator declares it dead; nothing new goes there. */
const FORCIBLE = ['maintenance', 'disabled'];

/**
 * The operator's `host:evacuate`: every VPS still recorded on a dead host is made again
 * on another host of its region, from its latest backup or, without one, from its image, one after
 * the other; the dead host is never asked anything. A VPS that cannot be (no room, no image, the
 * store cannot give its backup) stays recorded where it was and is tried again by the next run; one
 * already evacuated is no longer on the host and is not looked at again.
 */
@Injectable()
export class VpsEvacuation {
  private readonly logger = new Logger('VpsEvacuation');

  constructor(
    private readonly hosts: HostsRepository,
    private readonly evacuations: VpsEvacuationsRepository,
    private readonly start: EvacuationStart,
    private readonly end: EvacuationEnd,
    private readonly evacuator: MachineEvacuator,
    private readonly compute: ComputeProvider,
    private readonly store: BackupStore,
  ) {}

  async evacuate(name: string, force: boolean): Promise<EvacuationLine[]> {
    const host = await this.hosts.byName(name);
    if (!host) throw Problem.notFound('Host');
    if (host.state !== 'unreachable' && !(force && FORCIBLE.includes(host.state)))
      throw Problem.conflict(
        'invalid_state',
        `Host ${name} is ${host.state}: only an unreachable host is evacuated (--force takes one in maintenance or disabled that you know is dead).`,
      );
    const lines: EvacuationLine[] = [];
    for (const serviceId of await this.evacuations.onHost(host.id)) {
      const claim = await this.start.claim(serviceId, host);
      if (claim.kind === 'gone') continue;
      if (claim.kind === 'failed') {
        lines.push({ id: serviceId, from: name, to: null, outcome: 'failed', backupId: null, error: errorOf(claim.error) });
        continue;
      }
      lines.push(await this.one(claim));
    }
    return lines;
  }

  private async one(c: Claimed): Promise<EvacuationLine> {
    const line = { id: c.vps.id, from: c.from.name, to: c.to.name, backupId: c.plan.disk.from === 'backup' ? c.plan.disk.backup.id : null };
    const ref: InstanceRef = {
      serviceId: c.vps.id,
      providerRef: c.vps.providerRef,
      region: c.vps.region ?? '',
      name: c.vps.name,
      host: c.to,
    };
    try {
      await this.evacuator.recreate(ref, this.machineOf(c));
    } catch (err) {
      const error = failureOf(err);
      this.logger.error(`VPS ${c.vps.id} not evacuated from ${c.from.name} to ${c.to.name}: ${error.message}`);
      // What the try made on the new host goes; the VPS stays recorded on the dead one.
      await this.compute.destroyMachine(ref).catch((e: Error) => this.logger.warn(`Left on ${c.to.name}: ${e.message}`));
      await this.end.failed(c, error);
      return { ...line, to: null, outcome: 'failed', error: errorOf(error) };
    }
    const outcome = await this.end.made(c);
    this.logger.log(`VPS ${c.vps.id} evacuated from ${c.from.name} to ${c.to.name}: ${outcome}`);
    return { ...line, outcome };
  }

  private machineOf(c: Claimed): EvacuatedMachine {
    const { disk, network, powerState } = c.plan;
    const base = { vcpus: c.need.vcpus, memoryMb: c.need.memoryMb, network, powerOn: powerState === 'running' };
    if (disk.from === 'image') return { ...base, disk: { from: 'image', boot: disk.boot } };
    const { key, sizeBytes } = disk.backup;
    const open = () => this.store.get(key).catch((err: Error) => Promise.reject(new EvacuationFailure('backup_unavailable', err.message)));
    return { ...base, disk: { from: 'backup', open, sizeBytes, seed: disk.seed } };
  }
}

function failureOf(err: unknown): EvacuationFailure {
  if (err instanceof EvacuationFailure) return err;
  if (err instanceof ComputeProviderError) return new EvacuationFailure(err.code, err.message);
  return new EvacuationFailure('evacuation_failed', (err as Error).message);
}

const errorOf = (e: EvacuationFailure) => ({ code: e.code, message: e.message });

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue } from '@app/core';
import { ComputeProvider } from '../compute/compute-provider';
import { HostSetup } from '../compute/host-setup';
import { HostsRepository } from '../hosts/hosts.repository';
import { StaleMachines } from './stale-machines';

const PERIOD_SECONDS = 15;

/**
 * Every 15 s, on one replica: asks each host's hypervisor whether it answers. A host
 * silent for HOST_UNREACHABLE_GRACE_SECONDS is `unreachable` (its VPSes show
 * `hostReachable: false`, power actions answer 503); one that answers again goes back to the
 * state it had, and what an evacuation left on it is removed (StaleMachines).
 */
@Injectable()
export class HostHealthJob implements OnModuleInit {
  private readonly logger = new Logger('HostHealth');

  constructor(
    private readonly hosts: HostsRepository,
    private readonly setup: HostSetup,
    private readonly compute: ComputeProvider,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
    private readonly stale: StaleMachines,
  ) {}

  onModuleInit(): void {
    if (this.compute.makesMachines) this.jobs.every('host-health', PERIOD_SECONDS, async () => void (await this.check()));
  }

  /** One pass; returns the names of the hosts that are unreachable after it. */
  async check(): Promise<string[]> {
    const unreachable: string[] = [];
    for (const host of await this.hosts.watched()) {
      if (await this.setup.answers(host.uri)) {
        // Before the host is anything but unreachable again: an evacuated VPS's old domain never runs beside its new one (host:evacuate).
        await this.stale.sweep(host);
        if (await this.hosts.answered(host.id)) this.logger.log(`Host ${host.name} answers again`);
      } else if (await this.hosts.silent(host.id, this.config.hosts.unreachableGraceSeconds)) {
        if (host.state !== 'unreachable') this.logger.error(`Host ${host.name} (${host.uri}) does not answer: marked unreachable`);
        unreachable.push(host.name);
      }
    }
    return unreachable;
  }
}

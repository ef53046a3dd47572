import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue } from '@app/core';
import { ComputeProvider, HypervisorInventory, instanceRef } from '../../compute/compute-provider';
import { SettledInstance, VpsInstancesRepository } from '../vps-instances.repository';
import { HypervisorOrphansRepository, Orphan } from './hypervisor-orphans.repository';
import { MissingMachines } from './missing-machines';
import { OrphanClaims } from './orphan-claims';

const PERIOD_SECONDS = 60;

export interface ReconcileReport {
  /** `svc-` names of this deployment's that no live service owns, seen in this pass. */
  orphans: (Orphan & { hypervisor: string })[];
  /** `svc-` names of no deployment's mark and no service of this database: never removed. */
  unmarked: (Orphan & { hypervisor: string })[];
  /** Removed in this pass, their grace period over. */
  removed: (Orphan & { hypervisor: string })[];
  /** VPSes marked `error` because their machine vanished. */
  missing: string[];
}

/**
 * Compares each hypervisor with the database, one replica at a time: domains and
 * volumes named `svc-...` that no live VPS owns and that are this deployment's (OrphanClaims:
 * another deployment may share the hypervisor) are logged, counted for /metrics and
 * removed once they have been seen for LIBVIRT_ORPHAN_GRACE_SECONDS (a name without the prefix is
 * never looked at; one of no deployment's is logged once and left); a live VPS whose machine is
 * gone shows `error` and its customer is told. Power
 * states that drifted are PowerStateSync's job. A hypervisor that does not answer is skipped.
 * A periodic job (`machine-reconcile`, once a minute) when the provider makes machines.
 */
@Injectable()
export class MachineReconciler implements OnModuleInit {
  private readonly logger = new Logger('Reconcile');
  /** For /metrics: orphans seen in the last pass, by kind; totals since start. */
  readonly counts = { orphanDomains: 0, orphanVolumes: 0, orphansRemoved: 0, machinesMissing: 0 };
  private readonly unmarkedLogged = new Set<string>();

  constructor(
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
    private readonly orphans: HypervisorOrphansRepository,
    private readonly claims: OrphanClaims,
    private readonly missing: MissingMachines,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.compute.makesMachines) this.jobs.every('machine-reconcile', PERIOD_SECONDS, async () => void (await this.reconcile()));
  }

  async reconcile(): Promise<ReconcileReport> {
    const report: ReconcileReport = { orphans: [], unmarked: [], removed: [], missing: [] };
    // Read before listing: a VPS made after this read is no candidate for a vanished machine.
    const settled = (await this.instances.settled()).filter((row) => row.providerRef);
    for (const inventory of await this.compute.inventory()) {
      await this.orphansOf(inventory, report);
      await this.vanishedOf(inventory, settled, report);
    }
    this.counts.orphanDomains = report.orphans.filter((o) => o.kind === 'domain').length;
    this.counts.orphanVolumes = report.orphans.length - this.counts.orphanDomains;
    this.counts.orphansRemoved += report.removed.length;
    this.counts.machinesMissing += report.missing.length;
    return report;
  }

  private async orphansOf(inventory: HypervisorInventory, report: ReconcileReport): Promise<void> {
    const { hypervisor, domains, volumes } = inventory;
    const names = [...domains.keys(), ...volumes];
    const live = await this.instances.liveMachineNames(names);
    const candidates: Orphan[] = [
      ...[...domains.keys()].filter((name) => !live.has(name)).map((name) => ({ kind: 'domain' as const, name })),
      ...volumes.filter((name) => !live.has(name)).map((name) => ({ kind: 'volume' as const, name })),
    ];
    const claimed = await this.claims.sort(inventory, candidates).catch((err: Error) => {
      this.logger.warn(`Orphans on ${hypervisor} left for the next pass: ${err.message}`);
      return null;
    });
    if (!claimed) return;
    this.reportUnmarked(hypervisor, claimed.unmarked, report);
    const graceMs = this.config.libvirt.orphanGraceSeconds * 1000;
    for (const orphan of await this.orphans.sighted(hypervisor, claimed.own)) {
      report.orphans.push({ hypervisor, kind: orphan.kind, name: orphan.name });
      const { seenMs } = orphan;
      if (seenMs < graceMs) {
        this.logger.warn(
          `Orphan ${orphan.kind} ${orphan.name} on ${hypervisor}: no live service owns it; removed in ${Math.ceil((graceMs - seenMs) / 1000)} s`,
        );
        continue;
      }
      try {
        // Domains come first in the list: a volume is no longer in use once its domain is gone.
        await this.compute.removeOrphan(hypervisor, orphan.kind, orphan.name);
        await this.orphans.forget(hypervisor, orphan);
        report.removed.push({ hypervisor, kind: orphan.kind, name: orphan.name });
        this.logger.warn(`Orphan ${orphan.kind} ${orphan.name} on ${hypervisor} removed after its grace period`);
      } catch (err) {
        this.logger.error(`Orphan ${orphan.kind} ${orphan.name} on ${hypervisor} not removed: ${(err as Error).message}`);
      }
    }
  }

  private reportUnmarked(hypervisor: string, unmarked: Orphan[], report: ReconcileReport): void {
    for (const orphan of unmarked) {
      report.unmarked.push({ hypervisor, ...orphan });
      const key = `${hypervisor} ${orphan.kind} ${orphan.name}`;
      if (this.unmarkedLogged.has(key)) continue;
      this.unmarkedLogged.add(key);
      this.logger.warn(
        `${orphan.kind} ${orphan.name} on ${hypervisor} is of no service of this deployment and of no marked domain: left in place (remove it by hand if no deployment uses it)`,
      );
    }
  }

  /** A machine missing from the list is asked about once more by name before its VPS is marked. */
  private async vanishedOf(inventory: HypervisorInventory, settled: SettledInstance[], report: ReconcileReport): Promise<void> {
    for (const row of settled) {
      if (this.compute.hypervisorOf(instanceRef(row.id, row)) !== inventory.hypervisor || inventory.domains.has(row.providerRef!)) continue;
      if ((await this.compute.machineExists(instanceRef(row.id, row))) !== false) continue;
      if (await this.missing.mark(row.id, row.providerRef!)) {
        report.missing.push(row.id);
        this.logger.error(`The machine ${row.providerRef} of service ${row.id} is gone from ${inventory.hypervisor}; marked error`);
      }
    }
  }
}

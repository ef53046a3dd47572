import { Injectable } from '@nestjs/common';
import { Actor, ActivityLog, TransactionRunner } from '@app/core';
import { ComputeProvider, instanceRef } from '../../compute/compute-provider';
import { isSettled, isTransitional } from './power-state-machine';
import { ObservedChange, VpsInstancesRepository } from '../vps-instances.repository';
import { VpsState, VpsStates } from '../vps-states';
import type { PowerState } from '../../vps.types';

const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: null };

/**
 * Keeps vps_instances.power_state in step with a hypervisor whose machines also change state on
 * their own (a guest that shuts down, an operator's virsh): a read of one VPS asks the hypervisor
 * (briefly, see the adapter), and a periodic pass compares every machine. A recorded state is only
 * replaced while no action runs and when nothing recorded it after the hypervisor was asked, and
 * each replacement is recorded in the activity log (`instance.power_state_observed`). The periodic pass
 * is PowerStateReconcileJob.
 */
@Injectable()
export class PowerStateSync {
  constructor(
    private readonly instances: VpsInstancesRepository,
    private readonly states: VpsStates,
    private readonly compute: ComputeProvider,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
  ) {}

  /** The VPS's power state after asking the hypervisor; the recorded one when it cannot tell. */
  async refresh(service: VpsState): Promise<PowerState | null> {
    const recorded = service.powerState;
    if (!this.compute.observesExternalChanges || !recorded || !isSettled(recorded)) return recorded;
    // A host that does not answer keeps the last state known, without a wait for its timeout.
    if (service.host?.state === 'unreachable') return recorded;
    const askedAt = performance.now();
    const real = await this.compute.powerState(instanceRef(service.id, service));
    if (!real || isTransitional(real) || real === recorded) return recorded;
    const changed = await this.apply([{ id: service.id, recorded, real }], askedAt);
    return changed.length ? real : recorded;
  }

  async refreshForAccount(accountId: string, serviceId: string): Promise<void> {
    if (!this.compute.observesExternalChanges) return;
    const service = await this.states.forAccount(accountId, serviceId);
    if (service) await this.refresh(service);
  }

  /** Compares every settled VPS of a live service with its machine; returns the ids whose state changed. */
  async reconcile(): Promise<string[]> {
    const rows = await this.instances.settled();
    if (!rows.length) return [];
    const askedAt = performance.now();
    const states = await this.compute.powerStates(rows.map((row) => instanceRef(row.id, row)));
    const changes: ObservedChange[] = [];
    for (const row of rows) {
      const real = states.get(row.id);
      if (real && !isTransitional(real) && real !== row.powerState) changes.push({ id: row.id, recorded: row.powerState, real });
    }
    return changes.length ? this.apply(changes, askedAt) : [];
  }

  /**
   * Records the observed states, each with an activity entry (a drift is corrected and recorded).
   * `askedAt` is `performance.now()` when the hypervisor was asked: monotonic, whatever this
   * process's wall clock does.
   */
  private apply(changes: ObservedChange[], askedAt: number): Promise<string[]> {
    return this.tx.run(async (m) => {
      const changed = await this.instances.applyObserved(m, changes, performance.now() - askedAt);
      for (const change of changed) {
        await this.activity.record(m, {
          accountId: change.accountId,
          action: 'instance.power_state_observed',
          entity: { type: 'service', id: change.id },
          actor: SYSTEM_ACTOR,
          details: { from: change.recorded, to: change.real },
        });
      }
      return changed.map((change) => change.id);
    });
  }
}

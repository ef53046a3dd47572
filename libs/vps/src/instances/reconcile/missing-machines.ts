import { Injectable } from '@nestjs/common';
import { Actor, ActivityLog, domainEvent, TransactionRunner } from '@app/core';
import { VpsInstancesRepository } from '../vps-instances.repository';
import { VpsStates } from '../vps-states';
import type { InstanceFaultEvent } from '../../vps.events';

const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: null };

/**
 * A live VPS whose machine the hypervisor no longer has: it shows `error`, the activity log says
 * so and the customer is notified. The service row is locked first, so a termination under way
 * (which removes the machine itself) is waited for and then left alone.
 */
@Injectable()
export class MissingMachines {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly states: VpsStates,
    private readonly instances: VpsInstancesRepository,
    private readonly activity: ActivityLog,
  ) {}

  /** True when the VPS was marked now. */
  mark(serviceId: string, machine: string): Promise<boolean> {
    return this.tx.run(async (m, publish) => {
      const service = await this.states.lockById(m, serviceId);
      if (!service || service.status === 'terminated' || !(await this.instances.markMissing(m, serviceId))) return false;
      await this.activity.record(m, {
        accountId: service.accountId,
        action: 'instance.machine_missing',
        entity: { type: 'service', id: serviceId },
        actor: SYSTEM_ACTOR,
        status: 'failed',
        details: { machine, was: service.powerState },
      });
      publish(
        domainEvent<InstanceFaultEvent>('instance.fault', service.accountId, {
          serviceId,
          serviceName: service.name,
          code: 'machine_missing',
          message: `The machine of ${service.name} is no longer on its hypervisor.`,
        }),
      );
      return true;
    });
  }
}

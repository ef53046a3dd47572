import { Injectable } from '@nestjs/common';
import { Actor, ActivityLog, domainEvent, TransactionRunner } from '@app/core';
import { ServiceOwnership } from '@app/services';
import type { MachineRecord } from '../../compute/compute-provider';
import { VpsInstancesRepository } from '../vps-instances.repository';
import { ProvisioningWork, VpsProvisioningRepository } from './vps-provisioning.repository';
import type { InstanceFaultEvent } from '../../vps.events';

const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: null };

/**
 * Records how a VPS's provisioning ended, in one transaction with its activity entry (and, for a
 * failure, the customer's notice after COMMIT). The service row is locked first, as every writer
 * of a VPS does, so a termination under way is waited for and then wins.
 */
@Injectable()
export class ProvisioningOutcome {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly ownership: ServiceOwnership,
    private readonly instances: VpsInstancesRepository,
    private readonly provisioning: VpsProvisioningRepository,
    private readonly activity: ActivityLog,
  ) {}

  /** False when the provisioning had already ended (the service was terminated meanwhile): the machine is then not wanted. */
  succeeded(work: ProvisioningWork, machine: MachineRecord | null): Promise<boolean> {
    return this.tx.run(async (m) => {
      if (!(await this.ownership.lockById(m, work.serviceId))) return false;
      if (!(await this.provisioning.finish(m, work.serviceId, 'succeeded', null))) return false;
      const powerState = machine?.powerState ?? (work.spec.powerOn ? 'running' : 'stopped');
      await this.instances.setMachine(m, work.serviceId, machine?.providerRef ?? null, powerState);
      await this.activity.record(m, {
        accountId: work.accountId,
        action: 'instance.provisioned',
        entity: { type: 'service', id: work.serviceId },
        actor: SYSTEM_ACTOR,
        details: { providerRef: machine?.providerRef ?? null, powerState, attempts: work.attempts },
      });
      return true;
    });
  }

  /** `detail`: what the hypervisor said, kept in the provisioning's last error for the operator's command only. */
  async failed(work: ProvisioningWork, error: { code: string; message: string; detail?: string }): Promise<void> {
    await this.tx.run(async (m, publish) => {
      if (!(await this.ownership.lockById(m, work.serviceId))) return;
      const said = error.detail ? ` (hypervisor said: ${error.detail})` : '';
      if (!(await this.provisioning.finish(m, work.serviceId, 'failed', `${error.code}: ${error.message}${said}`))) return;
      await this.instances.setPowerState(m, work.serviceId, 'error');
      await this.activity.record(m, {
        accountId: work.accountId,
        action: 'instance.provision_failed',
        entity: { type: 'service', id: work.serviceId },
        actor: SYSTEM_ACTOR,
        status: 'failed',
        details: { errorCode: error.code, errorMessage: error.message, attempts: work.attempts },
      });
      publish(
        domainEvent<InstanceFaultEvent>('instance.fault', work.accountId, {
          serviceId: work.serviceId,
          serviceName: work.serviceName,
          code: 'provisioning_failed',
          message: `Setting up the machine of ${work.serviceName} failed after ${work.attempts} attempts (${error.message}).`,
        }),
      );
    });
  }
}

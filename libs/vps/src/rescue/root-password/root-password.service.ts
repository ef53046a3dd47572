import { Injectable } from '@nestjs/common';
import { ActivityLog, domainEvent, Principal, Problem, TransactionRunner } from '@app/core';
import { ComputeProvider, ComputeProviderError } from '../../compute/compute-provider';
import { RootPasswordResponse } from '../dto/root-password.response';
import { VpsRescuesRepository } from '../vps-rescues.repository';
import { VpsOwnership } from '../../instances/vps-ownership';
import type { InstanceAccessEvent } from '../../vps.events';
import { rootPassword } from './root-password';

/**
 * Root password reset: a password made here, set in the running guest by its
 * QEMU guest agent, returned once. It is stored nowhere, logged nowhere, and the activity entry
 * (and so its webhook) says only that it happened.
 */
@Injectable()
export class RootPasswordService {
  constructor(
    private readonly ownership: VpsOwnership,
    private readonly compute: ComputeProvider,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly rescues: VpsRescuesRepository,
  ) {}

  async reset(caller: Principal, serviceId: string): Promise<RootPasswordResponse> {
    const { accountId } = caller;
    const vps = await this.ownership.requireVps(accountId, serviceId);
    if (vps.status !== 'active')
      throw Problem.conflict('invalid_state', `The service is ${vps.status}; a password reset needs an active service.`);
    if (vps.powerState !== 'running')
      throw Problem.conflict('invalid_state', `The instance is ${vps.powerState}; a password is set in the running guest: start it first.`);
    // The rescue system's root is not the VPS's (its password came with the rescue).
    if (await this.rescues.active(serviceId))
      throw Problem.conflict('invalid_state', "The instance is in rescue mode; unrescue it to reset its own root's password.");
    const password = rootPassword();
    await this.compute.setRootPassword(vps.ref, password).catch((err: unknown) => Promise.reject(passwordProblem(err)));
    await this.tx.run(async (m, publish) => {
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'instance.password_reset',
        entity: { type: 'service', id: serviceId },
        details: { user: 'root' },
      });
      // The customer is told and mailed; never the password.
      publish(
        domainEvent<InstanceAccessEvent>('instance.password_reset', accountId, { serviceId, serviceName: vps.ref.name ?? serviceId }),
      );
    });
    return { rootPassword: password };
  }
}

function passwordProblem(err: unknown): unknown {
  if (!(err instanceof ComputeProviderError)) return err;
  if (err.code === 'guest_agent_unavailable') {
    return Problem.conflict(
      'guest_agent_unavailable',
      'The QEMU guest agent does not answer; install qemu-guest-agent in the VPS (and start it), then retry. Locked out? Rescue mode (POST .../instance/rescue) boots a rescue system with the VPS disk attached.',
    );
  }
  if (err.code === 'not_running')
    return Problem.conflict('invalid_state', 'The instance is not running; a password is set in the running guest.');
  return err;
}

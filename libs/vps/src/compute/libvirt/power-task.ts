import { ComputeProviderError, InstanceRef, NO_STEPS, StepReporter, TaskStatus } from '../compute-provider';
import { ACTION_TYPES, ActionType } from '../../vps.types';
import { powerStateOf } from './domain-state';
import { LibvirtDomains } from './libvirt-domains';

/** What the runner keeps as the task handle of a libvirt power action (its calls are synchronous). */
export interface PowerTask {
  type: ActionType;
  /** When the action was sent: the stop timeout counts from here. */
  since: number;
  /** For a reboot: the QEMU process that has to go (a new id means the guest was started again). */
  domainId: string | null;
}

export function encodeTask(task: PowerTask): string {
  return `${task.type}:${task.since}:${task.domainId ?? '-'}`;
}

export function decodeTask(taskId: string): PowerTask {
  const [type, since, domainId] = taskId.split(':');
  if (!(ACTION_TYPES as readonly string[]).includes(type) || !/^\d+$/.test(since)) {
    throw new ComputeProviderError('task_not_found', 'The hypervisor has no record of this task.');
  }
  return { type: type as ActionType, since: Number(since), domainId: domainId && domainId !== '-' ? domainId : null };
}

/**
 * A power action on a libvirt domain, and its task's state. libvirt's calls are synchronous, so the
 * handle records what was asked and when, and the status compares the domain's state with the
 * target: a guest still up after COMPUTE_STOP_TIMEOUT_SECONDS of an ACPI shutdown is powered off,
 * and the action says so. A reboot is an ACPI shutdown followed by a start.
 */
export class LibvirtPowerTasks {
  constructor(
    private readonly domains: LibvirtDomains,
    private readonly stopTimeoutSeconds: number,
    private readonly changeTimeoutMs: number,
    private readonly readTimeoutMs: number,
  ) {}

  async begin(instance: InstanceRef, type: ActionType, steps: StepReporter = NO_STEPS): Promise<string> {
    // Asking twice is harmless: each branch first looks at the domain's state.
    const domain = await this.domains.info(instance, this.changeTimeoutMs);
    const state = powerStateOf(domain.state);
    if (type === 'start' || type === 'rebuild') {
      await steps(10, 'starting the server');
      await this.domains.powerOn(instance, domain);
    } else if (state === 'running') {
      await steps(10, 'asking the guest to shut down (ACPI)');
      await this.domains.shutdownOnce(instance, domain.name);
    }
    return encodeTask({ type, since: Date.now(), domainId: type === 'reboot' ? domain.id : null });
  }

  async status(instance: InstanceRef, taskId: string): Promise<TaskStatus> {
    const task = decodeTask(taskId);
    const domain = await this.domains.info(instance, this.changeTimeoutMs);
    const state = powerStateOf(domain.state);
    if (task.type === 'start' || task.type === 'rebuild') {
      if (state === 'running') return { state: 'succeeded' };
      // Still starting: libvirt keeps a new QEMU process paused until it is set up.
      if (domain.id && Date.now() - task.since < this.stopTimeoutSeconds * 1000)
        return { state: 'running', progress: 90, step: 'waiting for the server to run' };
      return { state: 'failed', error: { code: 'start_failed', message: `The machine is ${domain.state} after it was started.` } };
    }
    if (task.type === 'reboot' && state === 'running' && domain.id !== task.domainId) return { state: 'succeeded' };
    if (state === 'stopped') {
      if (task.type === 'reboot') await this.domains.powerOn(instance, domain);
      return { state: 'succeeded' };
    }
    const timeoutS = this.stopTimeoutSeconds;
    const waited = Date.now() - task.since;
    if (waited < timeoutS * 1000) {
      const step = `waiting up to ${timeoutS} s for the guest to shut down`;
      return { state: 'running', progress: 10 + Math.floor((80 * waited) / (timeoutS * 1000)), step };
    }
    await this.domains.run(instance, ['destroy', domain.name]).catch(async (err: unknown) => {
      // The guest may have gone down on its own in the meantime.
      if (powerStateOf((await this.domains.info(instance, this.readTimeoutMs)).state) !== 'stopped') throw err;
    });
    if (task.type === 'reboot') await this.domains.run(instance, ['start', domain.name]);
    const then = task.type === 'reboot' ? ' and started again' : '';
    return {
      state: 'succeeded',
      notice: {
        code: 'forced_power_off',
        message: `The guest did not shut down within ${timeoutS} s of the ACPI request; it was powered off${then}.`,
      },
    };
  }
}

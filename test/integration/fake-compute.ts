import {
  ActionType,
  ComputeProvider,
  ComputeProviderError,
  ConsoleTarget,
  InstanceRef,
  MachineRecord,
  MachineSpec,
  PowerState,
  TaskStatus,
} from '@app/services';

/**
 * A hypervisor in memory, for the middle tier only (the e2e suites use the simulator or libvirt):
 * tasks stay running until the spec ends them, and every call is recorded.
 */
export class FakeCompute extends ComputeProvider {
  readonly actions: { serviceId: string; operation: ActionType; key: string }[] = [];
  readonly tasks = new Map<string, TaskStatus>();
  readonly states = new Map<string, PowerState>();
  readonly created: string[] = [];
  readonly destroyed: string[] = [];
  /** Thrown by the next powerAction. */
  refuseNextAction: ComputeProviderError | null = null;
  /** createMachine fails once this many machines exist. */
  machineLimit = Infinity;

  async powerAction(instance: InstanceRef, operation: ActionType, key: string): Promise<string> {
    const refusal = this.refuseNextAction;
    this.refuseNextAction = null;
    if (refusal) throw refusal;
    this.actions.push({ serviceId: instance.serviceId, operation, key });
    if (!this.tasks.has(`task-${key}`)) this.tasks.set(`task-${key}`, { state: 'running' });
    return `task-${key}`;
  }

  async taskStatus(_instance: InstanceRef, taskId: string): Promise<TaskStatus> {
    return this.tasks.get(taskId) ?? { state: 'failed', error: { code: 'task_not_found', message: 'No such task.' } };
  }

  async powerState(instance: InstanceRef): Promise<PowerState | null> {
    return this.states.get(instance.serviceId) ?? null;
  }

  openConsole(): Promise<ConsoleTarget> {
    throw new Error('not used by these specs');
  }

  pollIntervalMs(): number {
    return 10;
  }

  override async createMachine(instance: InstanceRef, spec: MachineSpec): Promise<MachineRecord> {
    if (this.created.length >= this.machineLimit) throw new ComputeProviderError('no_capacity', 'The host is full.');
    const providerRef = `vm-${instance.serviceId}`;
    this.created.push(providerRef);
    return { providerRef, powerState: spec.powerOn ? 'running' : 'stopped' };
  }

  override async destroyMachine(instance: InstanceRef): Promise<void> {
    this.destroyed.push(instance.providerRef ?? '');
  }
}

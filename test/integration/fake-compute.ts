import type { ActionType, PowerState } from '@app/vps';
import {
  ComputeProvider,
  ComputeProviderError,
  ConsoleTarget,
  HypervisorInventory,
  InstanceRef,
  MachineMark,
  MachineRecord,
  MachineSpec,
  TaskStatus,
} from '@app/vps';

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
  /** Thrown, in turn, by the next createMachine calls. */
  readonly createFailures: ComputeProviderError[] = [];
  override readonly makesMachines = true;
  /** What inventory reports: one hypervisor, `fake`. */
  readonly domains = new Map<string, PowerState>();
  readonly volumes: string[] = [];
  readonly removedOrphans: string[] = [];
  /** Deployment marks of listed domains; a domain not in here carries none. */
  readonly marks = new Map<string, MachineMark>();
  /** Runs inside createMachine before it makes the machine (something happening meanwhile). */
  duringCreate: (() => Promise<void>) | null = null;

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
    const failure = this.createFailures.shift();
    if (failure) throw failure;
    await this.duringCreate?.();
    if (this.created.length >= this.machineLimit) throw new ComputeProviderError('no_capacity', 'The host is full.');
    const providerRef = `vm-${instance.serviceId}`;
    this.created.push(providerRef);
    return { providerRef, powerState: spec.powerOn ? 'running' : 'stopped' };
  }

  override async destroyMachine(instance: InstanceRef): Promise<void> {
    this.destroyed.push(instance.providerRef ?? `vm-${instance.serviceId}`);
  }

  override async powerStates(instances: InstanceRef[]): Promise<Map<string, PowerState>> {
    return new Map(instances.flatMap((i) => (this.states.has(i.serviceId) ? [[i.serviceId, this.states.get(i.serviceId)!] as const] : [])));
  }

  override async inventory(): Promise<HypervisorInventory[]> {
    return [{ hypervisor: 'fake', domains: new Map(this.domains), volumes: [...this.volumes] }];
  }

  override hypervisorOf(): string {
    return 'fake';
  }

  override async machineExists(instance: InstanceRef): Promise<boolean | null> {
    return this.domains.has(instance.providerRef ?? '');
  }

  override async machineMark(_hypervisor: string, domain: string): Promise<MachineMark> {
    if (!this.domains.has(domain)) throw new ComputeProviderError('not_found', 'The machine does not exist on the hypervisor.');
    return this.marks.get(domain) ?? 'none';
  }

  override async removeOrphan(_hypervisor: string, kind: 'domain' | 'volume', name: string): Promise<void> {
    this.removedOrphans.push(`${kind}:${name}`);
    if (kind === 'domain') this.domains.delete(name);
    else this.volumes.splice(this.volumes.indexOf(name), 1);
  }
}

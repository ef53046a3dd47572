import type { ActionType, PowerState } from '../../service.types';

/** Which machine: our service id, and the hypervisor's own id when provisioning recorded one. */
export interface InstanceRef {
  serviceId: string;
  providerRef: string | null;
  region: string;
}

export type TaskStatus =
  | { state: 'running' }
  | { state: 'succeeded' }
  | { state: 'failed'; error: { code: string; message: string } };

/** Where the console proxy connects for a session, and what the client authenticates with. */
export interface ConsoleTarget {
  protocol: 'vnc';
  host: string;
  port: number;
  /** The VNC password (Proxmox: the vncproxy ticket) handed to the client. */
  password: string;
  /** Anything else the proxy needs to open the upstream connection (Proxmox ticket, libvirt URI...). */
  upstream?: Record<string, string>;
}

/**
 * An adapter refuses an operation for good (`retryable: false`: the action fails with `code`)
 * or cannot reach the hypervisor now (`retryable: true`: the runner tries again with backoff).
 */
export class ComputeProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

/**
 * The port to the hypervisor (docs/compute-provider.md). Power operations are asynchronous on
 * every real backend (a Proxmox UPID, an OpenStack 202 and a status to poll, a libvirt job), so the
 * port is "ask, then poll": the runner persists the task handle and polls until the task ends.
 */
export abstract class ComputeProvider {
  /** Begins a power operation and returns the provider's task handle. Must be idempotent per `idempotencyKey`. */
  abstract powerAction(instance: InstanceRef, operation: ActionType, idempotencyKey: string): Promise<string>;

  /** Where a task begun by powerAction stands. */
  abstract taskStatus(instance: InstanceRef, taskId: string): Promise<TaskStatus>;

  /** The machine's power state as the hypervisor sees it; null when it cannot tell. */
  abstract powerState(instance: InstanceRef): Promise<PowerState | null>;

  /** Opens a console endpoint on the hypervisor for one short session. */
  abstract openConsole(instance: InstanceRef): Promise<ConsoleTarget>;

  /** How long to wait before (next) asking about a task of this operation. */
  abstract pollIntervalMs(operation: ActionType): number;
}

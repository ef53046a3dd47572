import { ComputeProviderError, InstanceRef } from '../compute-provider';
import { DomainInfo, parseDominfo, powerStateOf } from './domain-state';
import { LibvirtConnections } from './libvirt-connections';
import { lookBeforeRetry } from './look-before-retry';
import { Virsh } from './virsh';

/** A look after a failed step (background work, never a request): a daemon just back from a stall is slow. */
export const LOOK_TIMEOUT_MS = 10_000;

/** One VPS's domain on its hypervisor (LibvirtConnections says which): virsh calls by name, each state change asked once and looked at before a retry. */
export class LibvirtDomains {
  constructor(
    readonly connections: LibvirtConnections,
    private readonly virsh: Virsh,
    private readonly changeTimeoutMs: number,
  ) {}

  startOnce(instance: InstanceRef, name: string): Promise<void> {
    return lookBeforeRetry(
      () => this.run(instance, ['start', name]),
      // Active (a QEMU process, maybe still paused while libvirt starts it) is started.
      async () => (await this.info(instance, LOOK_TIMEOUT_MS)).id !== null,
    );
  }

  /** An ACPI request; asking again is harmless, and a guest that is already going down or off needs none. */
  shutdownOnce(instance: InstanceRef, name: string): Promise<void> {
    return lookBeforeRetry(
      () => this.run(instance, ['shutdown', name, '--mode', 'acpi']),
      async () => powerStateOf((await this.info(instance, LOOK_TIMEOUT_MS)).state) !== 'running',
    );
  }

  powerOffOnce(instance: InstanceRef, name: string): Promise<void> {
    return lookBeforeRetry(
      () => this.run(instance, ['destroy', name]),
      async () => powerStateOf((await this.info(instance, LOOK_TIMEOUT_MS)).state) === 'stopped',
    );
  }

  /** Whether the VPS's domain is defined (false only when libvirt says it is not: an answer, logged at debug). */
  async exists(instance: InstanceRef, timeoutMs = LOOK_TIMEOUT_MS): Promise<boolean> {
    try {
      await this.virsh.run(this.uriOf(instance), ['dominfo', this.domainOf(instance)], { timeoutMs, expected: ['not_found'] });
      return true;
    } catch (err) {
      if (err instanceof ComputeProviderError && err.code === 'not_found') return false;
      throw err;
    }
  }

  /**
   * A paused domain resumed, a suspended one woken, a stopped one started. A paused domain may be
   * one libvirt is still starting (it keeps a new QEMU paused until it is set up): resuming it is
   * then refused as already running, which is what was asked.
   */
  async powerOn(instance: InstanceRef, domain: DomainInfo): Promise<void> {
    const state = domain.state.toLowerCase();
    const running = async () => powerStateOf((await this.info(instance, LOOK_TIMEOUT_MS)).state) === 'running';
    if (state === 'paused') await lookBeforeRetry(() => this.run(instance, ['resume', domain.name]), running);
    else if (state === 'pmsuspended') await lookBeforeRetry(() => this.run(instance, ['dompmwakeup', domain.name]), running);
    else if (powerStateOf(state) === 'stopped') await this.startOnce(instance, domain.name);
  }

  async info(instance: InstanceRef, timeoutMs: number): Promise<DomainInfo> {
    return parseDominfo(await this.run(instance, ['dominfo', this.domainOf(instance)], timeoutMs));
  }

  run(instance: InstanceRef, args: string[], timeoutMs?: number): Promise<string> {
    return this.virsh.run(this.uriOf(instance), args, { timeoutMs: timeoutMs ?? this.changeTimeoutMs });
  }

  domainOf(instance: InstanceRef): string {
    return instance.providerRef ?? `svc-${instance.serviceId}`;
  }

  uriOf(instance: InstanceRef): string {
    return this.connections.uriOf(instance);
  }

  /** A VNC server listening on every address is reached at the hypervisor's own host name. */
  vncHost(instance: InstanceRef, listen: string | null): string {
    if (listen && listen !== '0.0.0.0' && listen !== '::') return listen;
    const host = /^[^:]+:\/\/(?:[^@/]*@)?([^/:?]+)/.exec(this.uriOf(instance))?.[1];
    return host ?? '127.0.0.1';
  }
}

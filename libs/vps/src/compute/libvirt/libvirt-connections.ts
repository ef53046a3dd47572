import type { LibvirtConfig } from '@app/core';
import type { InstanceRef } from '../compute-provider';
import type { HostState } from '../../hosts/host.entity';

/** Where hosts are listed: the hosts table, or none. */
export interface HostDirectory {
  uris(states?: readonly HostState[]): Promise<string[]>;
}

/**
 * Which libvirt connection serves a VPS, in one place so that every operation inherits
 * it: the host placement recorded for the VPS (InstanceRef.host), else its region's hypervisor of
 * LIBVIRT_REGION_URIS, else LIBVIRT_URI (the hosts declared by configuration, one per region).
 */
export class LibvirtConnections {
  constructor(
    private readonly libvirt: Pick<LibvirtConfig, 'uri' | 'regionUris' | 'vncListen'>,
    private readonly hosts: HostDirectory = { uris: () => Promise.resolve([]) },
  ) {}

  uriOf(instance: Pick<InstanceRef, 'region' | 'host'>): string {
    return instance.host?.uri ?? this.regionUri(instance.region);
  }

  regionUri(region: string): string {
    return this.libvirt.regionUris[region] ?? this.libvirt.uri;
  }

  /** The address QEMU's VNC server listens on for a new domain of this VPS. */
  vncListenOf(instance: Pick<InstanceRef, 'host'>): string {
    return instance.host?.vncListen ?? this.libvirt.vncListen;
  }

  /** The hypervisors of the configuration. */
  configured(): string[] {
    return [...new Set([this.libvirt.uri, ...Object.values(this.libvirt.regionUris)])];
  }

  /** Every hypervisor: the configuration's and the hosts table's (those in `states`, when given). */
  async all(states?: readonly HostState[]): Promise<string[]> {
    return [...new Set([...this.configured(), ...(await this.hosts.uris(states))])];
  }
}

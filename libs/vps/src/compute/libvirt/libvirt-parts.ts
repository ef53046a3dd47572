import { readFileSync } from 'node:fs';
import { AppConfig, diskBackendOf, someDisksOnRbd } from '@app/core';
import type { DeploymentIdentity } from '../deployment-identity';
import { GuestFirewalls } from '../guest-firewalls';
import { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';
import { DeploymentMarks } from './deployment-marks';
import { DEFAULT_DOMAIN_TEMPLATE, templateProblems } from './domain-xml';
import { HostDirectory, LibvirtConnections } from './libvirt-connections';
import { LibvirtDomains } from './libvirt-domains';
import { NetworkFilters } from './libvirt-network-filters';
import { StoragePool } from './storage-pool';
import { Virsh } from './virsh';

/**
 * What every libvirt adapter stands on, built once by ComputeModule: one virsh (its keepalive),
 * the connections (which hypervisor serves a VPS; every host's URI), the domains on them, the
 * storage pool (and the RBD pool of regions whose VPS disks are on Ceph), the marks that say which
 * deployment made a domain, and the network filters.
 */
export class LibvirtParts {
  readonly changeTimeoutMs: number;
  readonly connections: LibvirtConnections;
  readonly domains: LibvirtDomains;
  readonly pool: StoragePool;
  readonly marks: DeploymentMarks;
  /** The nwfilters holding the firewalls of bridged VPSes. */
  readonly filters: NetworkFilters;
  /** The domain template (LIBVIRT_DOMAIN_TEMPLATE, or the built-in one), checked once. */
  readonly template: string;
  /** VPS disks on Ceph, where some region's DISK_BACKEND is rbd; null where every region keeps them in its hosts' pools. */
  readonly rbdDisks: RbdGuestDisks | null;

  constructor(
    readonly config: AppConfig,
    identity: Pick<DeploymentIdentity, 'id'>,
    hosts?: HostDirectory,
    /** The firewalls of each VPS, defined as filters on a host before its machine is (docs/decisions/firewalls.md). */
    readonly firewalls = new GuestFirewalls(),
    readonly virsh = new Virsh(config.libvirt.keepaliveSeconds),
  ) {
    this.changeTimeoutMs = config.libvirt.commandTimeoutSeconds * 1000;
    this.connections = new LibvirtConnections(config.libvirt, hosts);
    this.domains = new LibvirtDomains(this.connections, virsh, this.changeTimeoutMs);
    this.pool = new StoragePool(virsh, config.libvirt.storagePool, this.changeTimeoutMs);
    this.marks = new DeploymentMarks(virsh, identity, this.changeTimeoutMs);
    this.filters = new NetworkFilters(virsh, firewalls, this.changeTimeoutMs);
    const { domainTemplate } = config.libvirt;
    this.template = domainTemplate ? readFileSync(domainTemplate, 'utf8') : DEFAULT_DOMAIN_TEMPLATE;
    const { disks, volumes } = config;
    const rbd = someDisksOnRbd(disks);
    this.rbdDisks = rbd
      ? new RbdGuestDisks({ ...volumes, pool: disks.rbdPool }, identity, { virsh, timeoutMs: this.changeTimeoutMs })
      : null;
    const problems = templateProblems(this.template);
    if (rbd && !/\{\{\s*disks\s*\}\}/.test(this.template))
      problems.push('with DISK_BACKEND rbd the template must place the disks with {{disks}}');
    if (problems.length) throw new Error(`LIBVIRT_DOMAIN_TEMPLATE (${domainTemplate}) is not usable: ${problems.join('; ')}`);
  }

  /** The RBD disks of a VPS in `region`, or null when its disks are in its host's pool. */
  rbdDisksIn(region: string | null | undefined): RbdGuestDisks | null {
    return this.rbdDisks && diskBackendOf(this.config.disks, region) === 'rbd' ? this.rbdDisks : null;
  }
}

import type { HostCapacity, HostNeed } from './host.entity';

export type PlacementPolicy = 'spread' | 'pack';

/** vCPUs a host can hand out: its cores times the overcommit (the hosts_vcpus_capacity CHECK says the same). */
export function vcpuLimit(host: Pick<HostCapacity, 'vcpus' | 'cpuOvercommit'>): number {
  return Math.floor(host.vcpus * host.cpuOvercommit + 1e-9);
}

export function fits(host: HostCapacity, need: HostNeed): boolean {
  return (
    host.usedVcpus + need.vcpus <= vcpuLimit(host) &&
    host.usedMemoryMb + need.memoryMb <= host.memoryMb &&
    host.usedDiskGb + need.diskGb <= host.diskGb
  );
}

/** How full the host would be with the VPS on it: its fullest resource, 0 to 1. */
export function loadWith(host: HostCapacity, need: HostNeed): number {
  return Math.max(
    (host.usedVcpus + need.vcpus) / vcpuLimit(host),
    (host.usedMemoryMb + need.memoryMb) / host.memoryMb,
    (host.usedDiskGb + need.diskGb) / host.diskGb,
  );
}

/**
 * The hosts that have room for the VPS, best first: `spread` the emptiest (VPSes of a region share
 * as few hosts' failures as possible), `pack` the fullest that still fits (whole hosts stay free
 * for maintenance or big products). Ties go by name, so the choice is the same on every replica.
 */
export function rankHosts<T extends HostCapacity>(hosts: T[], need: HostNeed, policy: PlacementPolicy): T[] {
  const sign = policy === 'spread' ? 1 : -1;
  return hosts
    .filter((host) => fits(host, need))
    .map((host) => ({ host, load: loadWith(host, need) }))
    .sort((a, b) => sign * (a.load - b.load) || a.host.name.localeCompare(b.host.name))
    .map(({ host }) => host);
}

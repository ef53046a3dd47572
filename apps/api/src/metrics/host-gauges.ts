import { Gauge, Registry } from 'prom-client';
import type { VpsGauges } from '@app/vps';

type Resource = 'vcpus' | 'memory_mb' | 'disk_gb';

/**
 * Issue 40: each host's capacity used and free by resource, its VPS count and state, and the same
 * summed per region, read from the database at each scrape (every replica reports the same).
 */
export function registerHostGauges(registry: Registry, services: VpsGauges): void {
  const capacity = new Gauge({
    name: 'host_capacity',
    help: 'Capacity of each hypervisor host by resource (vCPUs with the overcommit), used or free.',
    labelNames: ['host', 'region', 'resource', 'kind'] as const,
    registers: [registry],
  });
  const regionCapacity = new Gauge({
    name: 'region_capacity',
    help: 'Capacity of the enabled hosts of each region by resource, used or free.',
    labelNames: ['region', 'resource', 'kind'] as const,
    registers: [registry],
  });
  const vpses = new Gauge({
    name: 'host_vps',
    help: 'VPSes placed on each host (terminated ones are not counted).',
    labelNames: ['host', 'region'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'host_state',
    help: 'Hosts by state (1 for the state the host is in).',
    labelNames: ['host', 'region', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      capacity.reset();
      regionCapacity.reset();
      vpses.reset();
      const regions = new Map<string, Record<Resource, { used: number; free: number }>>();
      for (const host of await services.hosts()) {
        this.set({ host: host.name, region: host.region, state: host.state }, 1);
        vpses.set({ host: host.name, region: host.region }, host.vpsCount);
        const sum = regions.get(host.region) ?? {
          vcpus: { used: 0, free: 0 },
          memory_mb: { used: 0, free: 0 },
          disk_gb: { used: 0, free: 0 },
        };
        for (const [resource, { total, used }] of Object.entries({ vcpus: host.vcpus, memory_mb: host.memoryMb, disk_gb: host.diskGb })) {
          capacity.set({ host: host.name, region: host.region, resource, kind: 'used' }, used);
          capacity.set({ host: host.name, region: host.region, resource, kind: 'free' }, total - used);
          sum[resource as Resource].used += used;
          if (host.state === 'enabled') sum[resource as Resource].free += total - used;
        }
        regions.set(host.region, sum);
      }
      for (const [region, sum] of regions) {
        for (const [resource, { used, free }] of Object.entries(sum)) {
          regionCapacity.set({ region, resource, kind: 'used' }, used);
          regionCapacity.set({ region, resource, kind: 'free' }, free);
        }
      }
    },
  });
}

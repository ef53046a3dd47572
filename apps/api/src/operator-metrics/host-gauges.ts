import { Counter, Gauge, Registry } from 'prom-client';
import type { VpsGauges } from '@app/vps';

type Host = Awaited<ReturnType<VpsGauges['hosts']>>[number];
const RESOURCES = { vcpus: 'vcpus', memory_mb: 'memoryMb', disk_gb: 'diskGb' } as const;

/**
 * Each host's capacity used and free by resource, its VPS count and state, and the same
 * summed per region (free: of enabled hosts), read from the database at each scrape (every replica
 * reports the same). The registry collects its metrics at once: the four share one read.
 */
export function registerHostGauges(registry: Registry, services: VpsGauges): void {
  const moves = onePerScrape(() => services.moves());
  const hosts = onePerScrape<Host[]>(() => services.hosts());
  new Gauge({
    name: 'host_capacity',
    help: 'Capacity of each hypervisor host by resource (vCPUs with the overcommit), used or free.',
    labelNames: ['host', 'region', 'resource', 'kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const host of await hosts()) {
        for (const [resource, key] of Object.entries(RESOURCES)) {
          this.set({ host: host.name, region: host.region, resource, kind: 'used' }, host[key].used);
          this.set({ host: host.name, region: host.region, resource, kind: 'free' }, host[key].free);
        }
      }
    },
  });
  new Gauge({
    name: 'region_capacity',
    help: 'Capacity of the hosts of each region by resource: used, and free on enabled hosts.',
    labelNames: ['region', 'resource', 'kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const sums = new Map<string, number>();
      const add = (labels: string, n: number) => sums.set(labels, (sums.get(labels) ?? 0) + n);
      for (const host of await hosts()) {
        for (const [resource, key] of Object.entries(RESOURCES)) {
          add(JSON.stringify({ region: host.region, resource, kind: 'used' }), host[key].used);
          add(JSON.stringify({ region: host.region, resource, kind: 'free' }), host.state === 'enabled' ? host[key].free : 0);
        }
      }
      for (const [labels, n] of sums) this.set(JSON.parse(labels) as Record<string, string>, n);
    },
  });
  new Gauge({
    name: 'host_vps',
    help: 'VPSes placed on each host (terminated ones are not counted).',
    labelNames: ['host', 'region'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const host of await hosts()) this.set({ host: host.name, region: host.region }, host.vpsCount);
    },
  });
  new Gauge({
    name: 'host_state',
    help: 'Hosts by state (1 for the state the host is in).',
    labelNames: ['host', 'region', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const host of await hosts()) this.set({ host: host.name, region: host.region, state: host.state }, 1);
    },
  });
  new Counter({
    name: 'vps_moves_total',
    help: 'Moves of VPSes between hosts that ended (service:move, host:drain), by mode (cold or live) and outcome: succeeded, rolled_back or failed.',
    labelNames: ['mode', 'outcome'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await moves();
      for (const mode of ['cold', 'live'] as const) for (const [outcome, n] of Object.entries(counts[mode])) this.inc({ mode, outcome }, n);
    },
  });
  new Counter({
    name: 'vps_live_move_downtime_seconds_total',
    help: 'The pause guests saw in the live moves that succeeded, summed (libvirt measures each; divide by vps_live_moves_timed_total for the mean).',
    registers: [registry],
    async collect() {
      this.reset();
      this.inc((await moves()).liveDowntime.seconds);
    },
  });
  new Counter({
    name: 'vps_live_moves_timed_total',
    help: 'Live moves that succeeded with a downtime measured by libvirt.',
    registers: [registry],
    async collect() {
      this.reset();
      this.inc((await moves()).liveDowntime.count);
    },
  });
}

/**
 * A scrape collects its metrics side by side: those that start while a read is in flight, or in the
 * same turn of the event loop as it ends, share it (one query, not one each).
 */
function onePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => (pending ??= read().finally(() => setImmediate(() => (pending = null))));
}

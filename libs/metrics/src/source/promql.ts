import type { MetricType } from '../metrics-range';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** prometheus-libvirt-exporter 0.2.0's counters behind each series (names checked against the exporter). */
const COUNTERS: Record<Exclude<MetricType, 'cpu'>, [string, string][]> = {
  disk: [
    ['disk.iops.read', 'libvirt_domain_block_stats_read_requests_total'],
    ['disk.iops.write', 'libvirt_domain_block_stats_write_requests_total'],
    ['disk.bandwidth.read', 'libvirt_domain_block_stats_read_bytes_total'],
    ['disk.bandwidth.write', 'libvirt_domain_block_stats_write_bytes_total'],
  ],
  network: [
    ['network.bandwidth.in', 'libvirt_domain_interface_stats_receive_bytes_total'],
    ['network.bandwidth.out', 'libvirt_domain_interface_stats_transmit_bytes_total'],
  ],
};

/** The rate window: a step's worth, and never under a minute, so a scrape interval up to 15 s still gives four samples. */
export const rateWindow = (step: number): number => Math.max(step, 60);

/** The exporter's label of one VPS's domain. Only a service id (a UUID) ever reaches the query. */
export function domainSelector(serviceId: string): string {
  if (!UUID.test(serviceId)) throw new Error(`not a service id: ${JSON.stringify(serviceId)}`);
  return `{domain="svc-${serviceId}"}`;
}

const named = (name: string, expr: string) => `label_replace(${expr}, "series", "${name}", "", "")`;

/**
 * One PromQL expression answering every asked type in one round trip: each series carries a
 * `series` label (`cpu`, `disk.iops.read`, ...), disks and NICs their `target_device`. CPU is in
 * percent of the VPS's vCPUs, bandwidths in bytes/s, iops in operations/s.
 */
export function metricsQuery(serviceId: string, types: MetricType[], step: number): string {
  const selector = domainSelector(serviceId);
  const window = `[${rateWindow(step)}s]`;
  const parts: string[] = [];
  if (types.includes('cpu')) {
    parts.push(
      named(
        'cpu',
        `clamp_max(100 * sum(rate(libvirt_domain_info_cpu_time_seconds_total${selector}${window})) / max(libvirt_domain_info_virtual_cpus${selector}), 100)`,
      ),
    );
  }
  for (const type of types) {
    if (type === 'cpu') continue;
    for (const [name, counter] of COUNTERS[type]) parts.push(named(name, `sum by (target_device) (rate(${counter}${selector}${window}))`));
  }
  return parts.join(' or ');
}

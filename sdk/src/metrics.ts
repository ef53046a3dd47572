import type { HostingClient } from './client';
import { unwrap } from './errors';
import type { components, operations } from './schema';

export type MetricType = 'cpu' | 'disk' | 'network';

/** `cpu` (percent of the VPS's vCPUs), `disk.<n>.iops|bandwidth.read|write` (operations/s, bytes/s), `network.<n>.bandwidth.in|out` (bytes/s). */
export type MetricSeriesName =
  'cpu' | `disk.${number}.${'iops' | 'bandwidth'}.${'read' | 'write'}` | `network.${number}.bandwidth.${'in' | 'out'}`;

/** `[time in unix seconds, value]`. */
export type MetricPoint = [time: number, value: number];

export interface InstanceMetrics {
  start: string;
  end: string;
  step: number;
  series: Partial<Record<MetricSeriesName, MetricPoint[]>>;
  /** Types asked for without any series (`network` under user-mode networking, everything while the VPS was off). */
  unavailable: MetricType[];
}

export type InstanceMetricsQuery = NonNullable<operations['getInstanceMetrics']['parameters']['query']>;

/**
 * A VPS's CPU, disk and network series (`GET /api/services/{id}/instance/metrics`), typed by
 * series name. Throws `HostingApiError` for an error answer (503 `metrics_unavailable` included).
 *
 *     const { series } = await instanceMetrics(client, id, { type: 'cpu', start: new Date(Date.now() - 6 * 3600e3).toISOString() });
 *     series.cpu?.at(-1); // [1795683600, 12.5]
 */
export async function instanceMetrics(
  client: HostingClient,
  serviceId: string,
  query: InstanceMetricsQuery = {},
  signal?: AbortSignal,
): Promise<InstanceMetrics> {
  const body = await unwrap(client.GET('/api/services/{id}/instance/metrics', { params: { path: { id: serviceId }, query }, signal }));
  return body as InstanceMetrics;
}

/** The unit of a series, by its name: `%`, `op/s` or `B/s`. */
export function metricUnit(name: MetricSeriesName | string): '%' | 'op/s' | 'B/s' {
  if (name === 'cpu') return '%';
  return name.includes('.iops.') ? 'op/s' : 'B/s';
}

export type InstanceAlert = components['schemas']['InstanceAlertResponse'];
export type NewInstanceAlert = components['schemas']['CreateInstanceAlertRequest'];

/**
 * A metric alert on a VPS (`POST /api/services/{id}/instance/alerts`): it fires once when every
 * point of the last `forMinutes` is above `above`, and resolves once when the latest is not. List
 * them with `listAll(client, '/api/services/{id}/instance/alerts', {}, { id })`.
 *
 *     await createInstanceAlert(client, id, { type: 'cpu', above: 90, forMinutes: 5 });
 */
export async function createInstanceAlert(client: HostingClient, serviceId: string, alert: NewInstanceAlert): Promise<InstanceAlert> {
  return unwrap(client.POST('/api/services/{id}/instance/alerts', { params: { path: { id: serviceId } }, body: alert }));
}

export async function deleteInstanceAlert(client: HostingClient, serviceId: string, alertId: string): Promise<void> {
  await unwrap(client.DELETE('/api/services/{id}/instance/alerts/{alertId}', { params: { path: { id: serviceId, alertId } } }));
}

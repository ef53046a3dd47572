// Typed client of the hosting account API, generated from apps/api/openapi.json (schema.d.ts,
// regenerate with `npm run sdk:generate`) plus a few hand-written helpers.
export { createHostingClient, bearerAuth } from './client';
export type { HostingClient, HostingClientOptions } from './client';
export { HostingApiError, unwrap } from './errors';
export type { Problem, ProblemCode, CallResult } from './errors';
export { pages, listAll } from './pagination';
export type { PaginatedPath, Page, ListItem, ListQuery, ListArgs } from './pagination';
export { waitForAction, ActionTimeoutError } from './actions';
export { waitForFirewall, FirewallTimeoutError, unenforcedAttachments } from './firewalls';
export type { Firewall, FirewallRule, FirewallAttachment, FirewallWaitOptions } from './firewalls';
export { waitForVolumeAction, VolumeActionTimeoutError } from './volumes';
export type { Volume, VolumeAction } from './volumes';
export { dnsZoneName, findDnsZone, exportDnsZone, importDnsZone } from './dns';
export type { DnsZone, DnsRecord, NewDnsRecord, DnsRecordChange } from './dns';
export { instanceMetrics, metricUnit, createInstanceAlert, deleteInstanceAlert } from './metrics';
export type {
  InstanceMetrics,
  InstanceMetricsQuery,
  MetricPoint,
  MetricSeriesName,
  MetricType,
  InstanceAlert,
  NewInstanceAlert,
} from './metrics';
export { resetRootPassword } from './root-password';
export { rescueInstance, unrescueInstance } from './rescue';
export type { RescueAction } from './rescue';
export { notificationEvents } from './events';
export type { NotificationEvent } from './events';
export { retryingFetch, idempotencyKeys, retryAfterMs } from './retry';
export type { RetryOptions, RetryNotice, FetchLike } from './retry';
export type { InstanceAction, WaitOptions } from './actions';
export type { paths, components, operations } from './schema';

import type { components } from './schema';
/** Every schema of the API by name: `Schemas['ServiceResponse']`, `Schemas['TicketResponse']`, ... */
export type Schemas = components['schemas'];

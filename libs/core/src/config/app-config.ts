import type { VpsSettings } from './vps-settings';

export type BlobStorageKind = 'local' | 's3';

export interface RateLimitConfig {
  /** General budget per credential per minute; 0 switches it off. */
  perMinute: number;
  loginPerMinute: number;
  registerPerHour: number;
  ticketCreatePerMinute: number;
  presignPerMinute: number;
  consolePerMinute: number;
  /** Root password resets of VPSes per account. */
  rootPasswordPerHour: number;
  /** Rescues of VPSes begun per account. */
  rescuePerHour: number;
  /** Reads of VPS metrics per account (each costs the metrics system CPU in proportion to its range). */
  metricsPerMinute: number;
  /** Failed logins per email over all IPs; past it each IP gets one failure per window for that email. */
  loginEmailFailuresPerMinute: number;
  /** 401 and 403 answers per IP; past it the IP is answered 429 before its credential is looked up. */
  authFailuresPerMinute: number;
  /** Second-factor attempts per account (login step, enable, disable). */
  mfaPerMinute: number;
  /** Password-reset requests per email. */
  passwordResetPerHour: number;
  /** Password-reset requests per IP: a minute's window, so colleagues behind one office address wait a minute at most. */
  passwordResetIpPerMinute: number;
  /** Verification and email-change mails per account. */
  emailPerHour: number;
  /** Invitations sent per account; member changes (role, removal) get as many again. */
  invitationsPerHour: number;
}

export interface TeamsConfig {
  /** Members and pending invitations per account. */
  membersPerAccount: number;
  invitationTtlHours: number;
}

export interface NotificationStreamLimits {
  perAccount: number;
  perIp: number;
  maxSeconds: number;
}

export interface S3Config {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

export type ObjectStorageProviderKind = 'simulator' | 'rgw';

export interface ObjectStorageConfig {
  provider: ObjectStorageProviderKind;
  /** Admin Ops API of the default region's Ceph RGW (its S3 endpoint too, unless `endpoint` is set). */
  rgwAdminUrl?: string;
  rgwAdminAccessKey?: string;
  rgwAdminSecretKey?: string;
  /** The zonegroup of RGW_ADMIN_URL's gateway: the region customers sign for. */
  rgwZonegroup: string;
  /** zonegroup -> gateway URL (RGW_REGION_URLS), for regions beyond the default one. */
  regionUrls: Record<string, string>;
  /** The S3 endpoint customers of the default region use (OBJECT_STORAGE_ENDPOINT). */
  endpoint?: string;
  /** A terminated service's gateway user and data are purged this long after termination. */
  purgeAfterDays: number;
  /** A gateway call without an answer in this long fails (and is retried on the queue). */
  requestTimeoutMs: number;
  /** A gateway step that failed is retried this often (for about ten minutes, then by the minute scan). */
  retrySeconds: number;
  /** Usage is read from the gateway on this schedule (and on demand at most once a minute). */
  usageRefreshSeconds: number;
}

/** Where a VPS's CPU, disk and network series are read: a Prometheus-compatible query API. */
export interface MetricsConfig {
  /** The query API of regions without their own (METRICS_PROMETHEUS_URL); unset with no region URL: no metrics system. */
  prometheusUrl?: string;
  /** region -> query API (METRICS_PROMETHEUS_REGION_URLS). */
  regionUrls: Record<string, string>;
  /** A query without a complete answer in this long fails with metrics_unavailable. */
  timeoutMs: number;
  /** Identical reads within this long share one query (METRICS_CACHE_SECONDS); 0: no cache. */
  cacheSeconds: number;
}

/**
 * Configuration read once at boot from the environment (names fixed by DESIGN.md). The VPS area's
 * settings (VpsSettings, read by vps-config.ts) merge in below.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AppConfig {
  nodeEnv: string;
  production: boolean;
  port: number;
  publicUrl: string;
  /** The customer dashboard that takes `/reset-password?token=` and `/verify-email?token=`; unset: the API's own pages. */
  dashboardUrl?: string;
  databaseUrl?: string;
  dataDir: string;
  logLevel: string;
  demoData: boolean;
  docsEnabled: boolean;
  jwtSecret: string;
  signingSecret: string;
  encryptionKey: Buffer;
  redisUrl?: string;
  blobStorage: BlobStorageKind;
  s3: S3Config;
  rateLimit: RateLimitConfig;
  corsOrigins: string[];
  dbPoolSize: number;
  dbStatementTimeoutMs: number;
  objectStorage: ObjectStorageConfig;
  metrics: MetricsConfig;
  dns: DnsConfig;
  teams: TeamsConfig;
  notificationsHeartbeatMs: number;
  notificationStreams: NotificationStreamLimits;
  /** Express `trust proxy`: false (trust no proxy), a hop count, or the proxies' addresses. */
  trustProxy: false | number | string[];
  /** Idle keep-alive connections live this long: longer than the load balancer keeps them. */
  httpKeepAliveTimeoutMs: number;
  httpHeadersTimeoutMs: number;
  /** Port of the Prometheus endpoint; undefined: no metrics endpoint (never on the API port). */
  metricsPort?: number;
  /** log2 of scrypt's N for new password hashes (15: 32 MiB and about 0.1 s per hash). */
  passwordHashCost: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  mail: MailConfig;
  jobs: JobsConfig;
  /** Activity log entries older than this many days are purged. */
  eventsRetentionDays: number;
  webhooks: WebhooksConfig;
}

export interface WebhooksConfig {
  /** http:// endpoint URLs accepted (development and tests only). */
  allowHttp: boolean;
  /** Loopback, private, link-local and other internal addresses may be delivered to (tests only). */
  allowPrivate: boolean;
  /** First retry delay of a failed delivery; doubles each attempt, with jitter. */
  retryBaseSeconds: number;
  /** A delivery is retried until this long after it was first queued. */
  retryWindowSeconds: number;
  /** An endpoint whose deliveries have all failed for this long is disabled. */
  disableAfterSeconds: number;
  /** An attempt without a complete answer in this many seconds fails (at most 15: it must fit the endpoint's 30 s lease). */
  timeoutSeconds: number;
  /** Attempts in parallel in one process (across endpoints; one at a time per endpoint). */
  concurrency: number;
}

/** The authoritative DNS servers customers' zones and reverse DNS live on (docs/decisions/dns.md). */
export interface DnsConfig {
  /** `simulator` when DNS_PROVIDER is unset: the routes work, nothing is served. */
  provider: 'simulator' | 'powerdns';
  powerDns: { apiUrl: string; apiKey: string; serverId: string };
  /** The NS names every zone gets (DNS_NAMESERVERS), without the trailing dot. */
  nameservers: string[];
  /** A VPS address's PTR when the customer set none: `<vps name>.<this>`; unset: none. */
  defaultPtrDomain?: string;
  /** The provider's own zones: no customer may hold them or a name within them. */
  reservedZones: string[];
  timeoutMs: number;
  zonesPerAccount: number;
  recordsPerZone: number;
}

export interface MailConfig {
  /** smtp:// or smtps://; unset: each message is written as an .eml file under DATA_DIR/outbox. */
  smtpUrl?: string;
  from: string;
  /** First retry delay of a failed send; doubles each attempt. */
  retryDelaySeconds: number;
}

export interface JobsConfig {
  /** How often an idle worker looks for new jobs. */
  pollIntervalMs: number;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface AppConfig extends VpsSettings {}

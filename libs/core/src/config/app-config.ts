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

export type ComputeProviderKind = 'simulator' | 'libvirt';

export interface LibvirtConfig {
  /** Connection URI of the hypervisor for regions without their own. */
  uri: string;
  /** region -> connection URI (LIBVIRT_REGION_URIS). */
  regionUris: Record<string, string>;
  /** Address the domains' VNC servers listen on: reachable from the API replicas, never from customers. */
  vncListen: string;
  /** Domain XML template file; undefined: the built-in guest (a disk from the image, a seed, user networking). */
  domainTemplate?: string;
  /** Storage pool of images, root disks and cloud-init seeds (a directory pool made when missing). */
  storagePool: string;
  /** virsh gives a silent libvirtd this long (keepalive) before it drops the connection. */
  keepaliveSeconds: number;
  /**
   * How a backup reads the disk's copy (LIBVIRT_DISK_TRANSFER): `auto` from its file where the
   * hypervisor is this machine and the file is readable, else through libvirt; `stream` always through libvirt.
   */
  diskTransfer: 'auto' | 'stream';
  /** A virsh call that changes something is killed after this long (reads keep 2 s). */
  commandTimeoutSeconds: number;
  /** A `svc-` domain or volume of no live service is removed this long after reconciliation first saw it. */
  orphanGraceSeconds: number;
  /**
   * Marks the domains this deployment defines, so two deployments on one hypervisor never take each
   * other's for orphans; undefined: the id its database made once (LIBVIRT_DEPLOYMENT_ID).
   */
  deploymentId?: string;
}

export interface Ipv4Pool {
  /** As configured, e.g. 203.0.113.0/24. */
  cidr: string;
  prefix: number;
  gateway: string;
  /** First and last address handed to VPSes, as 32-bit numbers (network, gateway and broadcast excluded). */
  first: number;
  last: number;
}

export interface Ipv6Pool {
  cidr: string;
  /** The first 64 bits, written as four groups (a /64 per pool). */
  prefix64: string;
  gateway: string;
}

/** How guests are reached (NETWORK_MODE): QEMU user networking with a forwarded SSH port, or a bridge with public addresses. */
export interface NetworkConfig {
  mode: 'user' | 'bridge';
  /** user: the host address forwarded ports listen on, and what customers are shown. */
  sshListen: string;
  /** user: forwarded SSH ports are taken from this range, per hypervisor. */
  sshPorts: { from: number; to: number };
  /** bridge: the host bridge guests are attached to. */
  bridge: string;
  ipv4Pools: Ipv4Pool[];
  ipv6Pool?: Ipv6Pool;
  dns: string[];
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

/** Many hypervisors per region: how a new VPS picks its host, and when a silent one is written off. */
export interface HostsConfig {
  placementPolicy: 'spread' | 'pack';
  unreachableGraceSeconds: number;
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

/** Backups of VPS disks: an S3 bucket off the hypervisors, or a local folder (the embedded default). */
export interface BackupConfig {
  /** BACKUP_S3_ENDPOINT set: backups go to that bucket; unset: under `localDir`. */
  s3?: { endpoint: string; region: string; bucket: string; accessKeyId: string; secretAccessKey: string; forcePathStyle: boolean };
  localDir: string;
  /** Backups kept per VPS (BACKUP_RETENTION). */
  retention: number;
  /** A terminated VPS's backups are deleted this long after (BACKUP_TERMINATED_GRACE_HOURS). */
  terminatedGraceHours: number;
  /** Size of one multipart part (BACKUP_S3_PART_MB); memory per backup is about one part. */
  partBytes: number;
  /** Daily backups run in this window (UTC), each VPS at a minute of its own. */
  window: { startHour: number; hours: number };
}

/** Rescue mode of VPSes: the system booted, and how long it lasts before it ends by itself. */
export interface RescueConfig {
  /** RESCUE_IMAGE: the slug of the rescue system; unset: the newest image added with `image:add --rescue`. */
  image?: string;
  /** RESCUE_HOURS (default 24): a rescue ends by itself (the VPS boots its own disk again) this long after it began. */
  hours: number;
}

/** Configuration read once at boot from the environment (names fixed by DESIGN.md). */
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
  computeTransitionDelayMs: number;
  /** What the simulator streams for a VPS's disk when it is backed up (it keeps no disks). */
  simulatorDiskBytes: number;
  consoleMaxPerAccount: number;
  consoleMaxSeconds: number;
  computeProvider: ComputeProviderKind;
  /** A guest still running this long after an ACPI shutdown request is powered off. */
  computeStopTimeoutSeconds: number;
  /** Tries of an action while the hypervisor cannot be reached, before it fails with hypervisor_unavailable. */
  computeRetryAttempts: number;
  /** Snapshots an account may keep (those being made count). */
  snapshotsPerAccount: number;
  backups: BackupConfig;
  libvirt: LibvirtConfig;
  network: NetworkConfig;
  objectStorage: ObjectStorageConfig;
  metrics: MetricsConfig;
  hosts: HostsConfig;
  rescue: RescueConfig;
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

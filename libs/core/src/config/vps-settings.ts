/** The VPS area's settings: its compute provider, hypervisors, guest network, backups and rescue (read by vps-config.ts). */
export interface VpsSettings {
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
  hosts: HostsConfig;
  rescue: RescueConfig;
  volumes: VolumesConfig;
  disks: DisksConfig;
}

export type DiskBackend = 'local' | 'rbd';

/** Where VPS disks live: a hypervisor's LIBVIRT_STORAGE_POOL (local), or RBD images in DISKS_RBD_POOL on the volumes' Ceph cluster. */
export interface DisksConfig {
  /** DISK_BACKEND, for regions DISK_BACKEND_REGIONS does not name. */
  backend: DiskBackend;
  /** DISK_BACKEND_REGIONS: region -> backend. */
  regions: Record<string, DiskBackend>;
  /** DISKS_RBD_POOL (`vps`): made (and `rbd pool init`) when missing and the client may. */
  rbdPool: string;
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
  /** Cloud firewalls an account may have (FIREWALLS_PER_ACCOUNT) and rules in one (FIREWALL_RULES_MAX). */
  firewallsPerAccount: number;
  firewallRulesMax: number;
}

/** Many hypervisors per region: how a new VPS picks its host, and when a silent one is written off. */
export interface HostsConfig {
  placementPolicy: 'spread' | 'pack';
  unreachableGraceSeconds: number;
  /** A live move still running this long is aborted: the VPS stays running on its old host. */
  migrationTimeoutSeconds: number;
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

/** A Ceph monitor as CEPH_MON_HOST names it. */
export interface CephMonitor {
  host: string;
  port: number;
}

/** Volumes (block storage that outlives a VPS): where their bytes live, and the Ceph cluster of the rbd backend. */
export interface VolumesConfig {
  /** VOLUME_BACKEND: `local` (a raw volume in the hypervisor's LIBVIRT_STORAGE_POOL) or `rbd` (an image in VOLUMES_RBD_POOL). */
  backend: 'local' | 'rbd';
  /** CEPH_MON_HOST; required with rbd. */
  cephMonitors: CephMonitor[];
  /** CEPH_CLIENT_NAME without `client.` (the API and QEMU both connect as it). */
  cephClientName: string;
  /** CEPH_CLIENT_KEY, the cephx key; undefined: the cluster runs without authentication. */
  cephClientKey?: string;
  /** VOLUMES_RBD_POOL: made (and `rbd pool init`) when missing and the client may. */
  rbdPool: string;
  /** VOLUMES_PER_VPS: volumes one VPS holds at most (16, as Hetzner's; the machine has slots for 24). */
  perVps: number;
}

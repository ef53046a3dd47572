import { backupConfig } from './backup-config';
import type { EnvReader } from './env-reader';
import { hostsConfig } from './hosts-config';
import { libvirtConfig } from './libvirt-config';
import { networkConfig } from './network-config';
import { rescueConfig } from './rescue-config';
import { volumesConfig } from './volumes-config';
import { disksConfig } from './disks-config';
import type { VpsSettings } from './vps-settings';

/** The VPS area's settings: COMPUTE_*, CONSOLE_*, SNAPSHOTS_PER_ACCOUNT, BACKUP_*, LIBVIRT_*, NETWORK_*, the hosts', rescue's, volumes' and disks'. */
export function vpsConfig(env: EnvReader, dataDir: string): VpsSettings {
  const config: VpsSettings = {
    computeTransitionDelayMs: env.int('COMPUTE_TRANSITION_DELAY_MS', 2000, 0),
    simulatorDiskBytes: env.int('COMPUTE_SIMULATOR_DISK_KIB', 256, 16, 4 * 1024 * 1024) * 1024,
    consoleMaxPerAccount: env.int('CONSOLE_MAX_PER_ACCOUNT', 5, 1, 1000),
    consoleMaxSeconds: env.int('CONSOLE_MAX_SECONDS', 14_400, 1, 7 * 24 * 3600),
    computeProvider: env.oneOf('COMPUTE_PROVIDER', ['simulator', 'libvirt'] as const, 'simulator'),
    computeStopTimeoutSeconds: env.int('COMPUTE_STOP_TIMEOUT_SECONDS', 60, 1, 3600),
    computeRetryAttempts: env.int('COMPUTE_RETRY_ATTEMPTS', 6, 1, 20),
    snapshotsPerAccount: env.int('SNAPSHOTS_PER_ACCOUNT', 10, 0, 10_000),
    backups: backupConfig(env, dataDir),
    libvirt: libvirtConfig(env),
    network: networkConfig(env),
    hosts: hostsConfig(env),
    rescue: rescueConfig(env),
    volumes: volumesConfig(env),
    disks: disksConfig(env),
  };
  if (config.computeProvider === 'libvirt' && config.network.mode === 'bridge' && !config.network.ipv4Pools.length) {
    env.problems.push('NETWORK_IPV4_POOL is required with NETWORK_MODE=bridge: the addresses handed to VPSes');
  }
  return config;
}

import type { HostsConfig } from './vps-settings';
import type { EnvReader } from './env-reader';

/** PLACEMENT_POLICY, HOST_UNREACHABLE_GRACE_SECONDS and MIGRATION_TIMEOUT_SECONDS: a region has many hypervisors. */
export function hostsConfig(env: EnvReader): HostsConfig {
  return {
    placementPolicy: env.oneOf('PLACEMENT_POLICY', ['spread', 'pack'] as const, 'spread'),
    // Longer than a libvirtd stall seen when it re-probes QEMU (NOTES.md): a slow host is not a dead one.
    unreachableGraceSeconds: env.int('HOST_UNREACHABLE_GRACE_SECONDS', 120, 0, 86_400),
    migrationTimeoutSeconds: env.int('MIGRATION_TIMEOUT_SECONDS', 600, 1, 86_400),
  };
}

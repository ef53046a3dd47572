import type { EnvReader } from './env-reader';
import type { DiskBackend, DisksConfig } from './vps-settings';

const BACKENDS: readonly DiskBackend[] = ['local', 'rbd'];
const REGION = /^[a-z0-9-]{1,32}$/;
const POOL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** DISK_BACKEND, DISK_BACKEND_REGIONS (`region=backend,...` where regions differ) and DISKS_RBD_POOL; rbd needs CEPH_MON_HOST. */
export function disksConfig(env: EnvReader): DisksConfig {
  const backend = env.oneOf('DISK_BACKEND', BACKENDS, 'local');
  const regions: Record<string, DiskBackend> = {};
  for (const entry of (env.string('DISK_BACKEND_REGIONS', '') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [region, value] = entry.split('=').map((part) => part.trim());
    if (!REGION.test(region ?? '') || !BACKENDS.includes(value as DiskBackend) || entry.split('=').length !== 2) {
      env.problems.push(
        `DISK_BACKEND_REGIONS must be region=local or region=rbd pairs separated by commas, e.g. eu-central=rbd (got "${entry}")`,
      );
    } else regions[region] = value as DiskBackend;
  }
  const rbdPool = env.string('DISKS_RBD_POOL', 'vps')!;
  if (!POOL.test(rbdPool)) env.problems.push(`DISKS_RBD_POOL must be a pool name (letters, digits, _ . -) (got "${rbdPool}")`);
  if (someDisksOnRbd({ backend, regions }) && !env.string('CEPH_MON_HOST')) {
    env.problems.push('CEPH_MON_HOST is required where DISK_BACKEND is rbd: the Ceph monitors, as host:port, comma-separated');
  }
  return { backend, regions, rbdPool };
}

/** Where a region's VPS disks live: its own entry in DISK_BACKEND_REGIONS, else DISK_BACKEND. */
export function diskBackendOf(config: DisksConfig, region: string | null | undefined): DiskBackend {
  return (region ? config.regions[region] : undefined) ?? config.backend;
}

/** True when DISK_BACKEND or some region's entry is rbd. */
export function someDisksOnRbd(config: Pick<DisksConfig, 'backend' | 'regions'>): boolean {
  return [config.backend, ...Object.values(config.regions)].includes('rbd');
}

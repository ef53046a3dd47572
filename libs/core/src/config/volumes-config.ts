import { isIP } from 'node:net';
import type { EnvReader } from './env-reader';
import type { CephMonitor, VolumesConfig } from './vps-settings';

const MON_PORT = 6789;
const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `host`, `host:port`, `[v6]` or `[v6]:port` (the port defaults to the monitor's 6789); null when it is none of these. */
function monitor(entry: string): CephMonitor | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return null;
  const host = match[1] ?? match[2];
  const port = match[3] === undefined ? MON_PORT : Number(match[3]);
  if (port < 1 || port > 65535) return null;
  if (match[1] !== undefined ? isIP(host) !== 6 : !(isIP(host) === 4 || HOST_NAME.test(host))) return null;
  return { host, port };
}

/** VOLUME_BACKEND, VOLUMES_PER_VPS, and for rbd the cluster: CEPH_MON_HOST, CEPH_CLIENT_NAME, CEPH_CLIENT_KEY, VOLUMES_RBD_POOL. */
export function volumesConfig(env: EnvReader): VolumesConfig {
  const backend = env.oneOf('VOLUME_BACKEND', ['local', 'rbd'] as const, 'local');
  const cephMonitors: CephMonitor[] = [];
  for (const entry of (env.string('CEPH_MON_HOST', '') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const found = monitor(entry);
    if (found) cephMonitors.push(found);
    else
      env.problems.push(`CEPH_MON_HOST must be monitors as host:port, comma-separated, e.g. 10.0.0.1:6789,10.0.0.2:6789 (got "${entry}")`);
  }
  if (backend === 'rbd' && !env.string('CEPH_MON_HOST')) {
    env.problems.push('CEPH_MON_HOST is required with VOLUME_BACKEND=rbd: the Ceph monitors, as host:port, comma-separated');
  }
  // `client.hosting` and `hosting` name the same client; libvirt and the rbd tool want the short name.
  const cephClientName = env.string('CEPH_CLIENT_NAME', 'admin')!.replace(/^client\./, '');
  if (!NAME.test(cephClientName))
    env.problems.push(`CEPH_CLIENT_NAME must be a Ceph client name such as hosting (got "${cephClientName}")`);
  const cephClientKey = env.string('CEPH_CLIENT_KEY');
  if (cephClientKey !== undefined && !/^[A-Za-z0-9+/]{16,}={0,2}$/.test(cephClientKey)) {
    env.problems.push('CEPH_CLIENT_KEY must be a cephx key in base64, as `ceph auth get-key client.<name>` prints it');
  }
  const rbdPool = env.string('VOLUMES_RBD_POOL', 'volumes')!;
  if (!NAME.test(rbdPool)) env.problems.push(`VOLUMES_RBD_POOL must be a pool name (letters, digits, _ . -) (got "${rbdPool}")`);
  const perVps = env.int('VOLUMES_PER_VPS', 16, 1, 24);
  return { backend, cephMonitors, cephClientName, cephClientKey, rbdPool, perVps };
}

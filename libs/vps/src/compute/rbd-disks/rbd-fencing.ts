import type { CephCli } from '../volumes/ceph-cli';

/**
 * How long the cluster refuses a fenced client: far longer than a dead host stays away unnoticed (the
 * health check destroys its stale machine as soon as it answers). Each QEMU's client address carries a
 * nonce of its own, so an entry never fences a machine started later, and none needs to be removed.
 */
export const FENCE_SECONDS = 30 * 24 * 3600;

interface Watcher {
  address: string;
}

interface Lock {
  id: string;
  locker: string;
  address: string;
}

/**
 * Fences whatever still has the images open before another host runs the machine from them: every
 * client watching an image (the QEMU of a host that stopped answering, which may well go on running)
 * is blocklisted by the cluster, so none of its writes lands any more, and every lock on it (RBD's
 * exclusive lock, held by the last writer) is broken, so the new QEMU takes it at once. Returns the
 * addresses fenced.
 */
export async function fenceRbdImages(cli: CephCli, pool: string, images: string[]): Promise<string[]> {
  const fenced = new Set<string>();
  for (const image of images) {
    const spec = `${pool}/${image}`;
    const status = JSON.parse((await cli.rbd(['status', spec, '--format', 'json'])) || '{}') as { watchers?: Watcher[] };
    for (const { address } of status.watchers ?? []) fenced.add(address);
    for (const lock of locksOf(await cli.rbd(['lock', 'ls', spec, '--format', 'json']))) {
      fenced.add(lock.address);
      await cli
        .rbd(['lock', 'rm', spec, lock.id, lock.locker], { expected: ['not_found'] })
        .catch((err: { code?: string }) => (err.code === 'not_found' ? undefined : Promise.reject(err)));
    }
  }
  for (const address of fenced) await cli.ceph(['osd', 'blocklist', 'add', address, String(FENCE_SECONDS)]);
  return [...fenced];
}

/** `rbd lock ls --format json`: an array of locks (Ceph 16 on), or an object keyed by the lock's id (earlier). */
export function locksOf(json: string): Lock[] {
  const parsed = JSON.parse(json.trim() || '[]') as Lock[] | Record<string, Omit<Lock, 'id'>>;
  if (Array.isArray(parsed)) return parsed;
  return Object.entries(parsed).map(([id, lock]) => ({ ...lock, id }));
}

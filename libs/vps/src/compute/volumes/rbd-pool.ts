import { ComputeProviderError } from '../compute-provider';
import type { CephCli } from './ceph-cli';

/** Makes the pool and initialises it for RBD when it is missing, if the client's caps allow; says what to run when they do not. */
export async function ensureRbdPool(cli: CephCli, pool: string, clientName: string): Promise<void> {
  const pools = JSON.parse(await cli.ceph(['osd', 'pool', 'ls', '--format', 'json'])) as string[];
  if (pools.includes(pool)) return;
  try {
    await cli.ceph(['osd', 'pool', 'create', pool]);
    await cli.rbd(['pool', 'init', pool]);
  } catch (err) {
    if (!(err instanceof ComputeProviderError && err.code === 'volume_backend_refused')) throw err;
    throw new ComputeProviderError(
      'volume_backend_refused',
      `The RBD pool ${pool} does not exist and client.${clientName} may not make it: ceph osd pool create ${pool}; rbd pool init ${pool}`,
    );
  }
}

import { ComputeProviderError } from '../compute-provider';

/** What VPSes whose disks are on Ceph cannot do yet: a refusal that changes nothing, never tried again. */
export function rbdNotYet(what: string): ComputeProviderError {
  return new ComputeProviderError('disk_backend_unsupported', `${what} is not available yet for servers whose disks are on Ceph.`);
}

import { ComputeProviderError } from '../compute-provider';
import type { Virsh } from './virsh';
import { withXmlFile } from './xml-file';

/** virsh gives up on its own a minute after the move's timeout: by then the abort has either worked or the daemon is gone. */
const VIRSH_GRACE_MS = 60_000;

/**
 * The address the destination's QEMU listens on for the guest's memory and disks, and the source's
 * connects to: the host part of the address the API reaches the destination at (the hosts reach
 * each other as the API reaches them); a daemon on a local socket is this machine, 127.0.0.1.
 * Never the destination's own hostname, which libvirt would otherwise look up.
 */
export function migrationAddress(uri: string): string {
  let host = '';
  try {
    host = new URL(uri).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    host = '';
  }
  return host && host !== 'localhost' ? host : '127.0.0.1';
}

/** `Total downtime: 142 ms` of `domjobinfo --completed` on the destination; null when libvirt did not say. */
export function downtimeOf(jobInfo: string): number | null {
  const ms = /^Total downtime:\s+(\d+)\s*ms/m.exec(jobInfo)?.[1];
  return ms === undefined ? null : Number(ms);
}

/**
 * One live migration, driven from the API host (not peer to peer: the hosts need to reach each other's
 * QEMU, not each other's libvirtd): with `copyStorage` the domain's local disks are copied along
 * (`--copy-storage-all`; the destination's volumes exist first), without it (disks on Ceph) only its
 * memory goes; defined there from `xml` and undefined on the source at the end.
 * Past `timeoutMs` the job is aborted on the source, where the guest goes on running.
 */
export async function migrateLive(
  virsh: Virsh,
  from: string,
  to: string,
  name: string,
  xml: string,
  timeoutMs: number,
  copyStorage = true,
): Promise<{ downtimeMs: number | null }> {
  const address = migrationAddress(to);
  const host = address.includes(':') ? `[${address}]` : address;
  let timedOut = false;
  await withXmlFile(xml, async (file) => {
    const copy = copyStorage ? ['--copy-storage-all'] : [];
    const args = ['migrate', '--live', '--persistent', '--undefinesource', ...copy, '--xml', file, '--persistent-xml', file];
    const migrating = virsh.run(from, [...args, '--migrateuri', `tcp://${host}`, '--listen-address', address, name, to], {
      timeoutMs: timeoutMs + VIRSH_GRACE_MS,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      virsh
        .run(from, ['domjobabort', name], { timeoutMs: VIRSH_GRACE_MS, expected: ['not_found', 'invalid_state'] })
        .catch(() => undefined);
    }, timeoutMs);
    try {
      await migrating;
    } catch (err) {
      const said = err instanceof ComputeProviderError ? (err.operatorDetail ?? err.message) : String(err);
      // Only operators read a relocation's error (its record, their command line): libvirt's own words are kept in it.
      if (timedOut)
        throw new ComputeProviderError(
          'migration_timeout',
          `The live move did not end within ${timeoutMs / 1000} s and was aborted (${said}).`,
        );
      throw new ComputeProviderError('migration_failed', `The hypervisor refused the live move: ${said}`);
    } finally {
      clearTimeout(timer);
    }
  });
  const info = await virsh.run(to, ['domjobinfo', '--completed', name], { timeoutMs: VIRSH_GRACE_MS }).catch(() => '');
  return { downtimeMs: downtimeOf(info) };
}

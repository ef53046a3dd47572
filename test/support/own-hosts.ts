import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { hostAddArgs, HostSize } from './hosts';
import { failOnLeftovers, removeDomainWith, removeUnsettled, Virsh, virshOnUri } from './libvirt-cleanup';
import type { OwnLibvirtd } from './own-libvirtd';

const runners = new Map<string, Virsh>();
const runnerOf = (daemon: OwnLibvirtd): Virsh => {
  const uri = daemon.uri();
  if (!runners.has(uri)) runners.set(uri, virshOnUri(uri, 120_000));
  return runners.get(uri)!;
};

/** virsh against a libvirtd of the test's own (one per simulated host); what it creates is followed as libvirt.ts's `virsh` does. */
export function virshOn(daemon: OwnLibvirtd, ...args: string[]): Promise<string> {
  return runnerOf(daemon)(...args);
}

/**
 * Powers off and undefines every domain of the daemon, and what calls not known to be over created
 * on it, each until libvirt says it is gone; before the daemon stops, whose guests would run on.
 * What it cannot remove fails the file after its cleanup (so the daemon still stops).
 */
export async function emptyOwnLibvirtd(daemon: OwnLibvirtd): Promise<void> {
  const virsh = runnerOf(daemon);
  for (const name of await domainsOn(daemon).catch(() => [])) await removeDomainWith(virsh, daemon.uri(), name);
  await removeUnsettled(virsh, daemon.uri());
}

if (typeof afterAll === 'function') afterAll(() => failOnLeftovers());

/** The domains the daemon defines (`--all`), or those `flags` select instead. */
export async function domainsOn(daemon: OwnLibvirtd, ...flags: string[]): Promise<string[]> {
  const listed = await virshOn(daemon, 'list', '--name', ...(flags.length ? flags : ['--all']));
  return listed.split('\n').filter(Boolean).sort();
}

/** The VPS volumes (`svc-` and then `prefix`) in the daemon's default pool. */
export async function volumesOn(daemon: OwnLibvirtd, prefix = ''): Promise<string[]> {
  return (await virshOn(daemon, 'vol-list', 'default'))
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0])
    .filter((volume) => volume.startsWith(`svc-${prefix}`))
    .sort();
}

/** An own daemon's size as a host: two vps-xs. */
export const OWN_HOST_SIZE: HostSize = { vcpus: 2, memoryGb: 2, diskGb: 50 };

/** `host:add` of the daemon as host `name` of `region`: OWN_HOST_SIZE, VNC on loopback. */
export async function addOwnHost(app: INestApplicationContext, name: string, region: string, daemon: OwnLibvirtd): Promise<void> {
  // Loaded here, not at the top: the soak (ts-node, no @app paths) uses this file's other helpers.
  const { runCliIn } = await import('./run-cli-in-app');
  const added = await runCliIn(app, hostAddArgs(name, region, daemon.uri(), OWN_HOST_SIZE, '--vnc-listen', '127.0.0.1'));
  if (added.code !== 0 || added.stderr) throw new Error(`host:add ${name}: exit ${added.code}: ${added.stderr}`);
}

/** The daemon's `default` pool, a dir under its data folder, made and started (own daemons start with none). */
export async function makeDefaultPool(daemon: OwnLibvirtd): Promise<void> {
  await virshOn(daemon, 'pool-define-as', 'default', 'dir', '--target', join(daemon.dir, 'data', 'pool'));
  await virshOn(daemon, 'pool-build', 'default');
  await virshOn(daemon, 'pool-start', 'default');
}

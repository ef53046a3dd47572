import { execFile } from 'node:child_process';
import type { INestApplicationContext } from '@nestjs/common';
import type { OwnLibvirtd } from './own-libvirtd';
import { runCliIn } from './run-cli-in-app';

/** virsh against a libvirtd of the test's own (issue 40's hosts). */
export function virshOn(daemon: OwnLibvirtd, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('virsh', ['-q', '-c', daemon.uri(), ...args], { timeout: 120_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`virsh ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout.trim()),
    ),
  );
}

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

/** `host:add` of the daemon as host `name` of `region`: 2 vCPUs, 2 GB, 50 GB (two vps-xs), VNC on loopback. */
export async function addOwnHost(app: INestApplicationContext, name: string, region: string, daemon: OwnLibvirtd): Promise<void> {
  const added = await runCliIn(app, [
    'host:add',
    '--name',
    name,
    '--region',
    region,
    '--uri',
    daemon.uri(),
    '--vcpus',
    '2',
    '--memory-gb',
    '2',
    '--disk-gb',
    '50',
    '--vnc-listen',
    '127.0.0.1',
  ]);
  if (added.code !== 0 || added.stderr) throw new Error(`host:add ${name}: exit ${added.code}: ${added.stderr}`);
}

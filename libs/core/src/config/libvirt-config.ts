import { accessSync, constants } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { EnvReader } from './env-reader';
import type { LibvirtConfig } from './vps-settings';

const LIBVIRT_URI = /^[a-z][a-z0-9+]*:\/\/[^\s,]*$/;

/** LIBVIRT_*: the hypervisors' connections, the guests' template and storage, and how long virsh waits. */
export function libvirtConfig(env: EnvReader): LibvirtConfig {
  const uri = env.string('LIBVIRT_URI', 'qemu:///system')!;
  if (!LIBVIRT_URI.test(uri)) env.problems.push(`LIBVIRT_URI must be a libvirt connection URI such as qemu:///system (got "${uri}")`);
  const regionUris: Record<string, string> = {};
  for (const entry of (env.string('LIBVIRT_REGION_URIS', '') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [region, regionUri] = [entry.slice(0, entry.indexOf('=')).trim(), entry.slice(entry.indexOf('=') + 1).trim()];
    if (!entry.includes('=') || !/^[a-z0-9-]{1,32}$/.test(region) || !LIBVIRT_URI.test(regionUri)) {
      env.problems.push(
        `LIBVIRT_REGION_URIS must be region=uri pairs separated by commas, e.g. eu-central=qemu+ssh://root@kvm1/system (got "${entry}")`,
      );
    } else regionUris[region] = regionUri;
  }
  const vncListen = env.string('LIBVIRT_VNC_LISTEN', '127.0.0.1')!;
  if (isIP(vncListen) === 0) env.problems.push(`LIBVIRT_VNC_LISTEN must be an IP address (got "${vncListen}")`);
  const domainTemplate = env.string('LIBVIRT_DOMAIN_TEMPLATE');
  if (domainTemplate !== undefined) {
    try {
      accessSync(domainTemplate, constants.R_OK);
    } catch {
      env.problems.push(`LIBVIRT_DOMAIN_TEMPLATE must name a readable file (got "${domainTemplate}")`);
    }
  }
  const storagePool = env.string('LIBVIRT_STORAGE_POOL', 'default')!;
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(storagePool)) {
    env.problems.push(`LIBVIRT_STORAGE_POOL must be a storage pool name (letters, digits, _ . -) (got "${storagePool}")`);
  }
  // Defaults outlast a 60 s stall of libvirtd (seen when it re-probes QEMU), so a step that is
  // making progress is not abandoned half-done.
  const keepaliveSeconds = env.int('LIBVIRT_KEEPALIVE_SECONDS', 90, 2, 3600);
  const diskTransfer = env.oneOf('LIBVIRT_DISK_TRANSFER', ['auto', 'stream'] as const, 'auto');
  const commandTimeoutSeconds = env.int('LIBVIRT_COMMAND_TIMEOUT_SECONDS', 120, 5, 3600);
  const orphanGraceSeconds = env.int('LIBVIRT_ORPHAN_GRACE_SECONDS', 3600, 0, 30 * 86_400);
  const deploymentId = env.string('LIBVIRT_DEPLOYMENT_ID');
  if (deploymentId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(deploymentId)) {
    env.problems.push(`LIBVIRT_DEPLOYMENT_ID must be 1 to 64 letters, digits, _ . - (got "${deploymentId}")`);
  }
  return {
    uri,
    regionUris,
    vncListen,
    domainTemplate: domainTemplate && resolve(domainTemplate),
    storagePool,
    keepaliveSeconds,
    diskTransfer,
    commandTimeoutSeconds,
    orphanGraceSeconds,
    deploymentId,
  };
}

import { createHash } from 'node:crypto';
import type { CephMonitor, VolumesConfig } from '@app/core';
import { lookBeforeRetry } from '../libvirt/look-before-retry';
import type { Virsh } from '../libvirt/virsh';
import { withXmlFile } from '../libvirt/xml-file';
import type { VolumeSource } from './volume-backend';

/** The cluster and client QEMU opens RBD images with (the volumes' CEPH_* settings). */
type CephClient = Pick<VolumesConfig, 'cephMonitors' | 'cephClientName' | 'cephClientKey'>;

/** RFC 4122's namespace for names that are URLs: our secret's UUID is a version 5 UUID of a URL-shaped name. */
const URL_NAMESPACE = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');

/**
 * The UUID of the libvirt secret holding the client's key: the same on every host and after every
 * restart (a `<disk>` names it), derived from the cluster and the client, so another cluster or
 * client gets a secret of its own.
 */
export function cephSecretUuid(clientName: string, monitors: CephMonitor[]): string {
  const name = `ceph://${monitors.map(({ host, port }) => `${host}:${port}`).join(',')}/client.${clientName}`;
  const hash = createHash('sha1').update(URL_NAMESPACE).update(name).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Private: libvirt never hands the value out again (virsh secret-get-value refuses). */
export function cephSecretXml(uuid: string, clientName: string): string {
  return `<secret ephemeral='no' private='yes'><uuid>${uuid}</uuid><usage type='ceph'><name>hosting-api client.${clientName}</name></usage></secret>`;
}

/**
 * Defines the secret on a hypervisor and sets its value to the key: both steps replace what is
 * there, so running it again (a rotated key, a new host) is the way to update it. The key passes
 * through a private file, never a command line.
 */
export async function defineCephSecret(
  virsh: Virsh,
  uri: string,
  secret: { uuid: string; clientName: string; key: string },
  timeoutMs: number,
): Promise<void> {
  const run = (args: string[]) => virsh.run(uri, args, { timeoutMs, secrets: [secret.key] });
  await lookBeforeRetry(
    () => withXmlFile(cephSecretXml(secret.uuid, secret.clientName), (file) => run(['secret-define', file])),
    async () => (await run(['secret-list'])).includes(secret.uuid),
  );
  await withXmlFile(secret.key, (file) => run(['secret-set-value', '--secret', secret.uuid, '--file', file]));
}

/** What a `<disk>` of an RBD image in `pool` points at: the monitors, and with cephx the client and its secret. */
export function rbdDiskSource(client: CephClient, pool: string, image: string): Extract<VolumeSource, { type: 'rbd' }> {
  const { cephMonitors, cephClientName, cephClientKey } = client;
  const auth = cephClientKey ? { username: cephClientName, secretUuid: cephSecretUuid(cephClientName, cephMonitors) } : null;
  return { type: 'rbd', pool, image, monitors: cephMonitors, auth };
}

/** With cephx, QEMU on the host reads the client's key from a libvirt secret (defined or replaced here); without, the host needs nothing. */
export async function prepareCephHost(virsh: Virsh, uri: string, client: CephClient, timeoutMs: number): Promise<void> {
  const { cephClientName: clientName, cephClientKey: key, cephMonitors } = client;
  if (!key) return;
  await defineCephSecret(virsh, uri, { uuid: cephSecretUuid(clientName, cephMonitors), clientName, key }, timeoutMs);
}

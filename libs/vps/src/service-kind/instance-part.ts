import { defaultPtr } from '@app/dns';
import type { InstanceSummaryResponse, SshEndpointResponse } from './dto/instance-summary.response';
import { hostnameOf } from '../instances/guest-setup';
import { volumeDevicePath } from '../compute/volumes/volume-names';
import { fingerprintOf, knownHostsLine } from '../host-keys/ssh-host-key';
import { publicPowerState } from '../vps.types';
import type { InstanceRow } from '../instances/vps-instances.repository';

/**
 * A VPS's `instance` in the service response. A terminated one shows no address: its address or
 * port went back to the pool and may be another customer's machine by now.
 */
export function instancePart(row: Omit<InstanceRow, 'id'> & { id?: string }, defaultPtrDomain?: string): InstanceSummaryResponse {
  const powerState = publicPowerState(row.powerState);
  const region = row.region ?? '';
  // Shown only while the host does not answer, so a VPS's usual shape is unchanged.
  const unreachable = row.hostReachable === false && !row.terminated ? { hostReachable: false as const } : {};
  const rescue = !!row.rescue && !row.terminated;
  if (row.terminated) return { powerState, ipv4: null, ipv6: null, region, ssh: null, rescue, firewalls: [], volumes: [], addresses: [] };
  const fallback = row.name && row.id ? defaultPtr(hostnameOf(row.name, row.id), defaultPtrDomain) : null;
  const addresses =
    row.publicAddresses === false
      ? []
      : [row.ipv4, row.ipv6].filter((ip): ip is string => !!ip).map((ip) => ({ ip, ptr: row.ptrs?.[ip] ?? fallback }));
  return {
    powerState,
    rescue,
    ipv4: row.ipv4,
    ipv6: row.ipv6,
    region,
    ssh: sshEndpoint(row, rescue),
    firewalls: row.firewalls ?? [],
    volumes: (row.volumes ?? []).map((v) => ({ ...v, device: v.state === 'attaching' ? null : volumeDevicePath(v.id) })),
    addresses,
    ...(row.backupsNextRunAt && { backups: { enabled: true, nextRunAt: row.backupsNextRunAt } }),
    ...unreachable,
  };
}

/** Where SSH answers, with the host keys of the system that answers there (the rescue system's while in rescue). */
function sshEndpoint(row: Omit<InstanceRow, 'id'>, rescue: boolean): SshEndpointResponse | null {
  const at = row.sshHost && row.sshPort ? { host: row.sshHost, port: Number(row.sshPort) } : row.ipv4 ? { host: row.ipv4, port: 22 } : null;
  if (!at) return null;
  const key = rescue ? row.rescueHostKey : row.hostKey;
  const hostKeys = key
    ? [{ type: key.split(' ')[0], fingerprint: fingerprintOf(key), publicKey: key, knownHosts: knownHostsLine(at.host, at.port, key) }]
    : [];
  return { ...at, hostKeys };
}

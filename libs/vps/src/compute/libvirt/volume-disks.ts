import { ComputeProviderError } from '../compute-provider';
import type { VolumeSource } from '../volumes/volume-backend';
import { VOLUME_PREFIX } from '../volumes/volume-names';

/** A volume's `<disk>` in a domain's XML, found by its serial. */
export interface VolumeDisk {
  serial: string;
  target: string;
  element: string;
}

/** vda is the root disk and vdb the rescue's slot for it (rescue-domain.ts): volumes take vdc onwards. */
const VOLUME_TARGETS = Array.from({ length: 24 }, (_, i) => `vd${String.fromCharCode('c'.charCodeAt(0) + i)}`);

/**
 * The `<disk>` of a volume: raw (QEMU formats nothing), discard passed down so the thin image gives
 * back what the guest frees, and the serial the guest finds it by (/dev/disk/by-id/virtio-<serial>).
 * RBD disks have cache='none', which libvirt wants of shared disks in a live migration; a local file
 * keeps QEMU's default (O_DIRECT fails on some filesystems, and it moves only by copy).
 */
export function volumeDiskXml(source: VolumeSource, serial: string, target: string): string {
  const tail = `<target dev='${xmlText(target)}' bus='virtio'/><serial>${xmlText(serial)}</serial>`;
  if (source.type === 'pool') {
    const driver = `<driver name='qemu' type='raw' discard='unmap'/>`;
    return `<disk type='volume' device='disk'>${driver}<source pool='${xmlText(source.pool)}' volume='${xmlText(source.volume)}'/>${tail}</disk>`;
  }
  return rbdDiskXml(source, 'disk', tail);
}

/** An RBD image as a `<disk type='network'>` (a volume, or a VPS's root disk or seed on Ceph), `tail` its target and the rest. */
export function rbdDiskXml(source: Extract<VolumeSource, { type: 'rbd' }>, device: 'disk' | 'cdrom', tail: string): string {
  const driver = `<driver name='qemu' type='raw' cache='none'${device === 'disk' ? " discard='unmap'" : ''}/>`;
  const hosts = source.monitors.map(({ host, port }) => `<host name='${xmlText(host)}' port='${port}'/>`).join('');
  const auth = source.auth
    ? `<auth username='${xmlText(source.auth.username)}'><secret type='ceph' uuid='${xmlText(source.auth.secretUuid)}'/></auth>`
    : '';
  const name = xmlText(`${source.pool}/${source.image}`);
  return `<disk type='network' device='${device}'>${driver}${auth}<source protocol='rbd' name='${name}'>${hosts}</source>${tail}</disk>`;
}

/** Every `<disk>` of a domain XML (as `virsh dumpxml` writes it) with the serial and target dev it has. */
export function disksOf(domainXml: string): VolumeDisk[] {
  return [...domainXml.matchAll(/<disk\b[\s\S]*?<\/disk>/g)].map(([element]) => ({
    element,
    serial: unescape(/<serial>([^<]*)<\/serial>/.exec(element)?.[1] ?? ''),
    target: /<target\s[^>]*dev=['"]([^'"]+)['"]/.exec(element)?.[1] ?? '',
  }));
}

export function diskWithSerial(domainXml: string, serial: string): VolumeDisk | null {
  return disksOf(domainXml).find((disk) => disk.serial === serial) ?? null;
}

/** The first volume target no disk of these definitions (live and persistent) uses. */
export function freeVolumeTarget(...domainXmls: string[]): string {
  const taken = new Set(domainXmls.flatMap((xml) => disksOf(xml).map((disk) => disk.target)));
  const free = VOLUME_TARGETS.find((target) => !taken.has(target));
  if (!free)
    throw new ComputeProviderError('too_many_disks', `The machine has no free disk slot (${VOLUME_TARGETS.length} volumes at most).`);
  return free;
}

/**
 * A new definition of a domain (rebuild, rescue) with the volumes the previous one had: attached
 * volumes outlive a redefinition as they outlive a restart.
 */
export function withVolumeDisks(domainXml: string, previousXml: string): string {
  const present = new Set(disksOf(domainXml).map((disk) => disk.serial));
  const carried = disksOf(previousXml).filter((disk) => disk.serial.startsWith(VOLUME_PREFIX) && !present.has(disk.serial));
  if (!carried.length) return domainXml;
  const elements = carried.map((disk) => disk.element.replace(/<alias\s[^>]*\/>/g, '')).join('\n    ');
  return domainXml.replace(/(\s*)<\/devices>/, `\n    ${elements}$1</devices>`);
}

/** The volume disks of a domain that live in a host's own pool (VOLUME_BACKEND=local): they cannot follow the machine to another host. */
export function localVolumeDisks(domainXml: string): VolumeDisk[] {
  return disksOf(domainXml).filter(
    (disk) => disk.serial.startsWith(VOLUME_PREFIX) && /^<disk\s[^>]*type=['"]volume['"]/.test(disk.element),
  );
}

function xmlText(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

function unescape(value: string): string {
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
  return value.replace(/&(lt|gt|amp|apos|quot);/g, (_, name: string) => named[name]);
}

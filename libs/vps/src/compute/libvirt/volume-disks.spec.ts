import { ComputeProviderError } from '../compute-provider';
import { volumeDevicePath, volumeSerial } from '../volumes/volume-names';
import { DEFAULT_DOMAIN_TEMPLATE, renderDomain } from './domain-xml';
import { rescueDomainXml } from './rescue-domain';
import { disksOf, diskWithSerial, freeVolumeTarget, localVolumeDisks, volumeDiskXml, withVolumeDisks } from './volume-disks';

const VOLUME = '9b2e4f10-3c5d-4e6f-8a7b-1c2d3e4f5a6b';
const SERVICE = '3f1c2a9e-8b7d-4c6e-9a1f-2b3c4d5e6f70';
const rbd = {
  type: 'rbd' as const,
  pool: 'volumes',
  image: `vol-${VOLUME}`,
  monitors: [
    { host: '10.0.0.1', port: 6789 },
    { host: '2001:db8::3', port: 3300 },
  ],
  auth: null,
};
const values = {
  name: `svc-${SERVICE}`,
  serviceId: SERVICE,
  vcpus: 1,
  memoryMb: 512,
  vncListen: '127.0.0.1',
  vncPassword: 'secret12',
  pool: 'default',
  rootVolume: `svc-${SERVICE}-root.qcow2`,
  seedVolume: `svc-${SERVICE}-seed.iso`,
  macAddress: '52:54:00:12:34:56',
  network: null,
};

describe('volume serials', () => {
  it('fit virtio-blk’s 20 characters, stay the same for a volume, and give the guest a stable path', () => {
    expect(volumeSerial(VOLUME)).toBe('vol-9b2e4f103c5d4e6f');
    expect(volumeSerial(VOLUME).length).toBeLessThanOrEqual(20);
    expect(volumeDevicePath(VOLUME)).toBe('/dev/disk/by-id/virtio-vol-9b2e4f103c5d4e6f');
  });
});

describe('volumeDiskXml', () => {
  it('makes an RBD network disk with every monitor, cache none, and no auth when cephx is off', () => {
    expect(volumeDiskXml(rbd, 'vol-9b2e4f103c5d4e6f', 'vdc')).toBe(
      `<disk type='network' device='disk'><driver name='qemu' type='raw' cache='none' discard='unmap'/>` +
        `<source protocol='rbd' name='volumes/vol-${VOLUME}'><host name='10.0.0.1' port='6789'/><host name='2001:db8::3' port='3300'/></source>` +
        `<target dev='vdc' bus='virtio'/><serial>vol-9b2e4f103c5d4e6f</serial></disk>`,
    );
  });

  it('names the client and the libvirt secret holding its key when cephx is on', () => {
    const xml = volumeDiskXml({ ...rbd, auth: { username: 'hosting', secretUuid: '5a9f0b8e-1c2d-5e3f-8a4b-6c7d8e9f0a1b' } }, 's', 'vdd');
    expect(xml).toContain(`<auth username='hosting'><secret type='ceph' uuid='5a9f0b8e-1c2d-5e3f-8a4b-6c7d8e9f0a1b'/></auth>`);
  });

  it('makes a local volume a disk of the storage pool, escaping what it writes', () => {
    expect(volumeDiskXml({ type: 'pool', pool: "a'b", volume: `vol-${VOLUME}` }, 'vol-x', 'vde')).toBe(
      `<disk type='volume' device='disk'><driver name='qemu' type='raw' discard='unmap'/><source pool='a&apos;b' volume='vol-${VOLUME}'/>` +
        `<target dev='vde' bus='virtio'/><serial>vol-x</serial></disk>`,
    );
  });
});

describe('disks of a domain', () => {
  const live = renderDomain(DEFAULT_DOMAIN_TEMPLATE, values).replace(
    '</devices>',
    `<disk type='network' device='disk'><source protocol='rbd' name='volumes/v'/>\n<target dev="vdc" bus="virtio"/>\n<serial>vol-one</serial><alias name='virtio-disk2'/></disk></devices>`,
  );

  it('finds each disk’s target and serial, a volume by its serial', () => {
    expect(disksOf(live).map((disk) => [disk.target, disk.serial])).toEqual([
      ['vda', ''],
      ['hdc', ''],
      ['vdc', 'vol-one'],
    ]);
    expect(diskWithSerial(live, 'vol-one')?.target).toBe('vdc');
    expect(diskWithSerial(live, 'vol-two')).toBeNull();
  });

  it('gives a volume the first target free in both definitions, never vdb (the rescue’s slot for the root disk)', () => {
    expect(freeVolumeTarget(renderDomain(DEFAULT_DOMAIN_TEMPLATE, values))).toBe('vdc');
    const persistent = live.replace('dev="vdc"', "dev='vdd'");
    expect(freeVolumeTarget(live, persistent)).toBe('vde');
  });

  it('refuses a 25th volume', () => {
    const full = Array.from({ length: 24 }, (_, i) => `<disk><target dev='vd${String.fromCharCode(99 + i)}'/></disk>`).join('');
    expect(() => freeVolumeTarget(full)).toThrow(ComputeProviderError);
  });

  it('carries the volumes of the previous definition into a new one (rebuild, rescue), without live aliases', () => {
    const rescue = rescueDomainXml(DEFAULT_DOMAIN_TEMPLATE, values);
    const xml = withVolumeDisks(rescue, live);
    expect(disksOf(xml).map((disk) => disk.target)).toEqual(['vda', 'hdc', 'vdb', 'vdc']);
    expect(xml).not.toContain('virtio-disk2');
    expect(withVolumeDisks(xml, live)).toBe(xml);
    expect(withVolumeDisks(rescue, renderDomain(DEFAULT_DOMAIN_TEMPLATE, values))).toBe(rescue);
  });

  it('tells the volumes of the host’s own pool (they cannot move with the machine) from RBD ones and the root disk', () => {
    const local = volumeDiskXml({ type: 'pool', pool: 'default', volume: `vol-${VOLUME}` }, volumeSerial(VOLUME), 'vdd');
    expect(localVolumeDisks(live)).toEqual([]);
    expect(localVolumeDisks(live.replace('</devices>', `${local}</devices>`)).map((disk) => disk.target)).toEqual(['vdd']);
  });
});

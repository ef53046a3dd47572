import { readFile } from 'node:fs/promises';
import type { AppConfig } from '@app/core';
import type { InstanceRef } from '../compute-provider';
import { seedFiles } from './cloud-init-seed';
import type { DeploymentMarks } from './deployment-marks';
import { DEFAULT_DOMAIN_TEMPLATE } from './domain-xml';
import { LibvirtConnections } from './libvirt-connections';
import type { LibvirtDomains } from './libvirt-domains';
import type { NetworkFilters } from './libvirt-network-filters';
import { LibvirtRescue, rescueDomainXml } from './rescue-domain';
import type { StoragePool } from './storage-pool';

const SERVICE = '3f1c2a9e-8b7d-4c6e-9a1f-2b3c4d5e6f70';
const values = {
  name: `svc-${SERVICE}`,
  serviceId: SERVICE,
  vcpus: 1,
  memoryMb: 1024,
  vncListen: '127.0.0.1',
  vncPassword: 'secret12',
  pool: 'default',
  rootVolume: `svc-${SERVICE}-root.qcow2`,
  seedVolume: `svc-${SERVICE}-seed.iso`,
  macAddress: '52:54:00:12:34:56',
  network: { mode: 'user' as const, mac: '52:54:00:12:34:56', sshHost: '127.0.0.1', sshPort: 22001 },
};

describe('rescueDomainXml', () => {
  it('boots the rescue disk as vda with the rescue seed, and attaches the VPS’s own disk as vdb, last', () => {
    const xml = rescueDomainXml(DEFAULT_DOMAIN_TEMPLATE, values);
    const disks = [...xml.matchAll(/<disk [\s\S]*?<\/disk>/g)].map((m) => m[0]);
    expect(disks).toHaveLength(3);
    expect(disks[0]).toContain(`volume='svc-${SERVICE}-rescue.qcow2'/><target dev='vda'`);
    expect(disks[1]).toContain(`volume='svc-${SERVICE}-rescue-seed.iso'/><target dev='hdc'`);
    expect(disks[2]).toContain(`volume='svc-${SERVICE}-root.qcow2'/><target dev='vdb' bus='virtio'/>`);
    expect(xml.indexOf(disks[2])).toBeGreaterThan(xml.indexOf('org.qemu.guest_agent.0'));
    expect(xml).not.toContain(`svc-${SERVICE}-seed.iso`);
    // The same network: the rescue system answers SSH on the VPS's own forwarded port.
    expect(xml).toContain('hostfwd=tcp:127.0.0.1:22001-:22');
  });
});

describe('seedFiles of a rescue', () => {
  it('with disks on Ceph, boots the rescue clone as vda and attaches the VPS’s own RBD disk as vdb, nothing of the pool', () => {
    const source = (image: string) => ({
      type: 'rbd' as const,
      pool: 'vps',
      image,
      monitors: [{ host: '10.0.0.5', port: 6789 }],
      auth: null,
    });
    const own = { root: source(`svc-${SERVICE}-root`), seed: source(`svc-${SERVICE}-seed`) };
    const rescue = { root: source(`svc-${SERVICE}-rescue`), seed: source(`svc-${SERVICE}-rescue-seed`) };
    const xml = rescueDomainXml(DEFAULT_DOMAIN_TEMPLATE, { ...values, rbdDisks: own }, rescue);
    const disks = [...xml.matchAll(/<disk [\s\S]*?<\/disk>/g)].map((m) => m[0]);
    expect(disks).toHaveLength(3);
    expect(disks[0]).toMatch(new RegExp(`name='vps/svc-${SERVICE}-rescue'>.*<target dev='vda'`));
    expect(disks[1]).toMatch(new RegExp(`device='cdrom'.*name='vps/svc-${SERVICE}-rescue-seed'>.*<target dev='hdc'`));
    expect(disks[2]).toMatch(new RegExp(`name='vps/svc-${SERVICE}-root'>.*<target dev='vdb' bus='virtio'/>`));
    expect(xml).not.toContain(`svc-${SERVICE}-seed'`);
    expect(xml).not.toContain("type='volume'");
  });

  it("sets root's password from its hash (chpasswd), and SSH stays key-only", () => {
    const hash = '$6$abcdefgh$GjMgmmowSihU3X8xhdMxaCaEziO5NUh/IZqYnnZhN1j7.JYnm2e5BnPfWNUdj17OlEroBdrPtMnfsmwWCrkw70';
    const files = seedFiles(
      { instanceId: 'iid-rescue-1', hostname: 'rescue', sshKeys: ['ssh-ed25519 AAAA k'], rootPasswordHash: hash },
      null,
    );
    expect(files['user-data']).toContain(
      `chpasswd:\n  expire: false\n  users:\n    - name: root\n      password: "${hash}"\n      type: hash\n`,
    );
    expect(files['user-data']).toContain('ssh_pwauth: false');
    expect(seedFiles({ instanceId: 'i', hostname: 'h', sshKeys: [] }, null)['user-data']).not.toContain('chpasswd');
  });
});

const filterOf = (xml: string) => /<filterref filter='([^']+)'/.exec(xml)?.[1] ?? 'none';

describe('LibvirtRescue', () => {
  const config = {
    libvirt: { uri: 'qemu:///system', regionUris: {}, vncListen: '127.0.0.1', storagePool: 'default' },
  } as unknown as AppConfig;
  const instance: InstanceRef = {
    serviceId: SERVICE,
    providerRef: `svc-${SERVICE}`,
    region: 'eu-central',
    host: { id: 'h1', name: 'kvm2', uri: 'qemu+ssh://root@kvm2/system', vncListen: '10.0.0.5', state: 'enabled' },
  };

  /** The XML of every `virsh define`, read from its file while it exists; `previous`, the persistent definition before. */
  function rescues(previous = '') {
    const defined: string[] = [];
    const steps: string[] = [];
    const domains = {
      connections: new LibvirtConnections(config.libvirt),
      uriOf: (ref: InstanceRef) => ref.host?.uri ?? config.libvirt.uri,
      info: () =>
        Promise.resolve({
          name: `svc-${SERVICE}`,
          uuid: 'f0e1d2c3-0000-4000-8000-000000000001',
          id: null,
          state: 'shut off',
          vcpus: 1,
          memoryKiB: 1048576,
        }),
      powerOffOnce: () => Promise.resolve(),
      startOnce: () => Promise.resolve(),
      run: async (_ref: InstanceRef, args: string[]) => {
        if (args[0] === 'define') defined.push(await readFile(args[1], 'utf8'));
        if (args[0] === 'define') steps.push('define');
        return args[0] === 'dumpxml' ? previous : '';
      },
    } as unknown as LibvirtDomains;
    const pool = {
      remove: () => Promise.resolve(),
      createOverlay: () => Promise.resolve(),
      upload: () => Promise.resolve(),
    } as unknown as StoragePool;
    const marks = { refuseForeign: () => Promise.resolve(), ours: () => Promise.resolve('deployment-1') } as unknown as DeploymentMarks;
    // No ISO tool needed: the fake pool never reads the seed's file.
    const seedIso = <T>(_files: unknown, use: (path: string, size: number) => Promise<T>) => use('/seed.iso', 1);
    const filters = {
      beforeDefine: (_uri: string, _serviceId: string, xml: string) => Promise.resolve(steps.push(`filters for ${filterOf(xml)}`)),
    } as unknown as NetworkFilters;
    return {
      defined,
      steps,
      rescue: new LibvirtRescue(config, domains, pool, marks, filters, DEFAULT_DOMAIN_TEMPLATE, 1000, () => null, seedIso),
    };
  }

  it("defines the rescue and the unrescued domain with the VNC address of the VPS's host, not LIBVIRT_VNC_LISTEN", async () => {
    const { defined, rescue } = rescues();
    const boot = {
      imageId: 'img-rescue',
      imageFormat: 'qcow2' as const,
      diskGb: 2,
      seed: { instanceId: 'iid-r', hostname: 'rescue', sshKeys: [] },
    };
    await rescue.rescue(instance, boot, values.network);
    await rescue.unrescue(instance, values.network);
    expect(defined).toHaveLength(2);
    for (const xml of defined) {
      expect(xml).toContain("listen='10.0.0.5'");
      expect(xml).not.toContain("listen='127.0.0.1'");
    }
  });

  it('keeps the volumes attached to the domain in the rescue and after it', async () => {
    const volume = `<disk type='volume' device='disk'><source pool='default' volume='vol-1'/><target dev='vdc' bus='virtio'/><serial>vol-1</serial></disk>`;
    const { defined, rescue } = rescues(`<domain><devices>${volume}</devices></domain>`);
    const boot = { imageId: 'img-rescue', imageFormat: 'qcow2' as const, diskGb: 2, seed: { instanceId: 'i', hostname: 'r', sshKeys: [] } };
    await rescue.rescue(instance, boot, values.network);
    await rescue.unrescue(instance, values.network);
    for (const xml of defined) expect(xml).toContain(volume);
  });

  it("has the VPS's filter defined on its host before a bridged rescue domain that references it", async () => {
    const { steps, rescue } = rescues();
    const bridge = { mode: 'bridge' as const, mac: values.macAddress, bridge: 'br0', dns: [], ipv6: null };
    await rescue.unrescue(instance, { ...bridge, ipv4: { address: '203.0.113.5', prefix: 24, gateway: '203.0.113.1' } });
    expect(steps).toEqual([`filters for hosting-vps-${SERVICE}`, 'define']);
  });

  it('keeps LIBVIRT_VNC_LISTEN for a VPS on a hypervisor of the configuration (no host row)', async () => {
    const { defined, rescue } = rescues();
    await rescue.unrescue({ ...instance, host: null }, values.network);
    expect(defined[0]).toContain("listen='127.0.0.1'");
  });
});

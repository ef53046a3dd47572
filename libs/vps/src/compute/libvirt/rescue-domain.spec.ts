import { seedFiles } from './cloud-init-seed';
import { DEFAULT_DOMAIN_TEMPLATE } from './domain-xml';
import { rescueDomainXml } from './rescue-domain';

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

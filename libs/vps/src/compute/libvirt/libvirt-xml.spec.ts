import { ComputeProviderError } from '../compute-provider';
import { parseDominfo, parseDomainList, powerStateOf } from './domain-state';
import {
  DEFAULT_DOMAIN_TEMPLATE,
  DEPLOYMENT_NS,
  deploymentMarkOf,
  renderDomain,
  templateProblems,
  vncGraphics,
  withDeploymentMark,
  withVncPassword,
} from './domain-xml';
import { decodeTask, encodeTask } from './power-task';
import { virshError } from './virsh';

const LIVE = `<domain type='qemu' id='3'>
  <devices>
    <graphics type='vnc' port='5901' autoport='yes' listen='127.0.0.1'>
      <listen type='address' address='127.0.0.1'/>
    </graphics>
    <video><model type='vga'/></video>
  </devices>
</domain>`;

/** A small VPS's values: the disks and network are each test's own. */
const ONE_VCPU = { name: 'svc-1', serviceId: '1', vcpus: 1, memoryMb: 1024, vncListen: '127.0.0.1', vncPassword: 'pw', pool: 'default' };

describe('libvirt domain XML', () => {
  it('renders the built-in template with escaped values', () => {
    expect(templateProblems(DEFAULT_DOMAIN_TEMPLATE)).toEqual([]);
    const xml = renderDomain(DEFAULT_DOMAIN_TEMPLATE, {
      name: 'svc-1',
      serviceId: "a'b",
      vcpus: 2,
      memoryMb: 2048,
      vncListen: '10.0.0.5',
      vncPassword: 'pw<>',
      pool: 'default',
      rootVolume: '',
      seedVolume: '',
      macAddress: '',
      network: null,
    });
    expect(xml).toContain('<name>svc-1</name>');
    expect(xml).toContain("<memory unit='MiB'>2048</memory>");
    expect(xml).toContain('<vcpu>2</vcpu>');
    expect(xml).toContain("listen='10.0.0.5' passwd='pw&lt;&gt;'");
    expect(xml).toContain('VPS service a&apos;b');
  });

  it('puts the root disk and the seed as RBD network disks where the region keeps its disks on Ceph, with the cephx secret', () => {
    const rbd = (image: string) => ({
      type: 'rbd' as const,
      pool: 'vps',
      image,
      monitors: [{ host: '10.0.0.1', port: 6789 }],
      auth: { username: 'hosting', secretUuid: '2f1d6e63-0000-5000-8000-000000000001' },
    });
    const xml = renderDomain(DEFAULT_DOMAIN_TEMPLATE, {
      ...ONE_VCPU,
      rootVolume: 'svc-1-root',
      seedVolume: 'svc-1-seed',
      rbdDisks: { root: rbd('svc-1-root'), seed: rbd('svc-1-seed') },
      macAddress: '52:54:00:aa:bb:cc',
      network: null,
    });
    const auth = `<auth username='hosting'><secret type='ceph' uuid='2f1d6e63-0000-5000-8000-000000000001'/></auth>`;
    expect(xml).toContain(
      `<disk type='network' device='disk'><driver name='qemu' type='raw' cache='none' discard='unmap'/>${auth}<source protocol='rbd' name='vps/svc-1-root'><host name='10.0.0.1' port='6789'/></source><target dev='vda' bus='virtio'/></disk>`,
    );
    expect(xml).toContain(
      `<disk type='network' device='cdrom'><driver name='qemu' type='raw' cache='none'/>${auth}<source protocol='rbd' name='vps/svc-1-seed'><host name='10.0.0.1' port='6789'/></source><target dev='hdc' bus='ide'/><readonly/></disk>`,
    );
    expect(xml).not.toContain("<source pool='default'");
  });

  it('puts the root disk, the seed CD-ROM and QEMU user networking with a restricted forward in the built-in template', () => {
    const xml = renderDomain(DEFAULT_DOMAIN_TEMPLATE, {
      ...ONE_VCPU,
      rootVolume: 'svc-1-root.qcow2',
      seedVolume: 'svc-1-seed.iso',
      macAddress: '52:54:00:aa:bb:cc',
      network: { mode: 'user', mac: '52:54:00:aa:bb:cc', sshHost: '127.0.0.1', sshPort: 22001 },
    });
    expect(xml).toContain(`<source pool='default' volume='svc-1-root.qcow2'/><target dev='vda' bus='virtio'/>`);
    expect(xml).toContain(`device='cdrom'><driver name='qemu' type='raw'/><source pool='default' volume='svc-1-seed.iso'/>`);
    expect(xml).toContain(`<qemu:arg value='user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:22001-:22'/>`);
    expect(xml).toContain(`<qemu:arg value='virtio-net-pci,netdev=n0,bus=pci.0,addr=0x10,mac=52:54:00:aa:bb:cc'/>`);
    expect(xml).not.toContain('<interface');
    // QEMU's own user networking: libvirt has no interface to filter.
    expect(xml).not.toContain('filterref');

    const bridged = renderDomain(DEFAULT_DOMAIN_TEMPLATE, {
      name: 'svc-1',
      serviceId: '1',
      vcpus: 1,
      memoryMb: 1024,
      vncListen: '127.0.0.1',
      vncPassword: 'pw',
      pool: 'default',
      rootVolume: '',
      seedVolume: '',
      macAddress: '52:54:00:aa:bb:cc',
      network: {
        mode: 'bridge',
        mac: '52:54:00:aa:bb:cc',
        bridge: 'br0',
        ipv4: { address: '203.0.113.5', prefix: 24, gateway: '203.0.113.1' },
        ipv6: null,
        dns: [],
      },
    });
    expect(bridged).toContain(
      `<interface type='bridge'><source bridge='br0'/><mac address='52:54:00:aa:bb:cc'/><model type='virtio'/>` +
        `<filterref filter='hosting-vps-1'/></interface>`,
    );
    expect(bridged).not.toContain('qemu:commandline');
    expect(bridged).not.toContain('<disk');
    expect(
      templateProblems(`<domain><name>{{name}}</name><graphics type='vnc' passwd='{{vncPassword}}'/>{{qemuCommandline}}</domain>`),
    ).toEqual(["{{qemuCommandline}} needs xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0' on <domain>"]);
  });

  it('names what makes a template unusable', () => {
    expect(templateProblems(`<domain><name>x</name><devices>{{disk}}</devices></domain>`)).toEqual([
      'unknown placeholder {{disk}}',
      'the domain <name> must be {{name}}',
      "a <graphics type='vnc'> device is needed for the console",
    ]);
    expect(templateProblems(`<domain><name>{{name}}</name><graphics type='vnc' autoport='yes'/></domain>`)[0]).toMatch(/passwd=/);
  });

  it('reads the live VNC device and sets a password valid until a time', () => {
    const graphics = vncGraphics(LIVE)!;
    expect(graphics).toMatchObject({ port: 5901, listen: '127.0.0.1' });
    const device = withVncPassword(graphics.element, 'Ab3dEf7h', new Date('2026-11-23T17:00:05.123Z'));
    expect(device).toMatch(
      /^<graphics passwd='Ab3dEf7h' passwdValidTo='2026-11-23T17:00:05' type='vnc' port='5901' autoport='yes' listen='127.0.0.1'>/,
    );
    expect(device).toMatch(/<\/graphics>$/);
    expect(vncGraphics(`<graphics type='vnc' port='-1' autoport='yes'/>`)).toBeNull();
    expect(vncGraphics(`<graphics type='spice' port='5900'/>`)).toBeNull();
  });
});

describe('libvirt task handles', () => {
  it('round-trips every action type, rebuild included, and refuses anything else', () => {
    for (const type of ['start', 'stop', 'reboot', 'rebuild'] as const) {
      expect(decodeTask(encodeTask({ type, since: 5, domainId: type === 'reboot' ? '7' : null }))).toEqual({
        type,
        since: 5,
        domainId: type === 'reboot' ? '7' : null,
      });
    }
    expect(() => decodeTask('format:5:-')).toThrow(/no record of this task/);
  });
});

describe('virsh output and errors', () => {
  it('maps states and parses dominfo and list', () => {
    expect(['running', 'in shutdown', 'shut off', 'paused', 'crashed', 'weird'].map(powerStateOf)).toEqual([
      'running',
      'stopping',
      'stopped',
      'stopped',
      'stopped',
      null,
    ]);
    expect(
      parseDominfo(
        'Id:             -\nName:           svc-x\nUUID:           u-1\nOS Type:        hvm\nState:          shut off\nCPU(s):         2\nMax memory:     1048576 KiB\n',
      ),
    ).toEqual({
      id: null,
      name: 'svc-x',
      uuid: 'u-1',
      state: 'shut off',
      vcpus: 2,
      memoryKiB: 1048576,
    });
    expect(parseDominfo('Id:             7\nName:           svc-x\nUUID:           u-1\nState:          running\n').id).toBe('7');
    expect([...parseDomainList(' 1    svc-a   running\n -    svc-b   shut off\n\n')]).toEqual([
      ['svc-a', 'running'],
      ['svc-b', 'stopped'],
    ]);
  });

  it('tells an unreachable hypervisor (retryable) from a refusal', () => {
    const err = (stderr: string, extra: object = {}) =>
      virshError(Object.assign(new Error('Command failed'), { code: 1 as unknown as string }, extra), stderr, 2000);
    const unreachable = err(
      "error: failed to connect to the hypervisor\nerror: Failed to connect socket to '/var/run/libvirt/libvirt-sock': No such file or directory",
    );
    expect(unreachable).toMatchObject({ code: 'hypervisor_unavailable', retryable: true });
    expect(err('', { killed: true })).toMatchObject({
      code: 'hypervisor_unavailable',
      retryable: true,
      message: expect.stringContaining('2000 ms'),
    });
    expect(err('', { code: 'ENOENT' })).toMatchObject({ code: 'hypervisor_unavailable', retryable: true });
    expect(err("error: failed to get domain 'svc-x'")).toMatchObject({ code: 'not_found', retryable: false });
    expect(err('error: metadata not found: Requested metadata element is not present')).toMatchObject({ code: 'no_metadata' });
    // Which thing is missing, in our own names only.
    const image = '3b593bbb-1f0e-4c6a-9d52-0a8b7c6d5e4f';
    expect(
      err(
        `error: Failed to create vol svc-1-root.qcow2\nerror: Storage volume not found: no storage vol with matching name 'img-${image}'`,
      ),
    ).toMatchObject({
      code: 'not_found',
      message: `The image's disk (volume img-${image}) does not exist in the hypervisor's storage pool.`,
    });
    expect(err(`error: failed to get vol '/var/lib/libvirt/images/svc-${image}-seed.iso'`).message).toBe(
      `The volume svc-${image}-seed.iso does not exist in the hypervisor's storage pool.`,
    );
    expect(err("error: failed to get vol '/srv/secret/disk.img'").message).toBe(
      "A volume does not exist in the hypervisor's storage pool.",
    );
    expect(err("error: failed to get pool 'default'").message).toBe('The storage pool does not exist on the hypervisor.');
    const refused = err("error: Failed to start domain 'svc-x'\nerror: internal error: /var/lib/secret path");
    expect(refused).toBeInstanceOf(ComputeProviderError);
    expect(refused).toMatchObject({ code: 'hypervisor_error', retryable: false });
    expect(refused.message).not.toContain('/var/lib');
  });

  it('marks a domain with its deployment in <metadata> (issue 36), whatever the template has there, and reads the mark back', () => {
    const mark = `<hosting:deployment xmlns:hosting='${DEPLOYMENT_NS}'>d-1</hosting:deployment>`;
    expect(withDeploymentMark(`<domain>\n  <name>svc-1</name>\n</domain>`, 'd-1')).toBe(
      `<domain>\n  <name>svc-1</name>\n  <metadata>${mark}</metadata>\n</domain>`,
    );
    expect(withDeploymentMark(`<domain><name>svc-1</name><metadata/></domain>`, 'd-1')).toBe(
      `<domain><name>svc-1</name><metadata>${mark}</metadata></domain>`,
    );
    expect(withDeploymentMark(`<domain><name>svc-1</name><metadata><app:x xmlns:app='urn:x'/></metadata></domain>`, 'd-1')).toBe(
      `<domain><name>svc-1</name><metadata><app:x xmlns:app='urn:x'/>${mark}</metadata></domain>`,
    );
    expect(deploymentMarkOf('<deployment>d-1</deployment>\n')).toBe('d-1');
    expect(deploymentMarkOf(`<h:deployment xmlns:h="${DEPLOYMENT_NS}"> d-1 </h:deployment>`)).toBe('d-1');
    expect(deploymentMarkOf('<deployment/>')).toBeNull();
    expect(deploymentMarkOf('<deployment></deployment>')).toBeNull();
    expect(templateProblems(DEFAULT_DOMAIN_TEMPLATE.replace('</name>', `</name><metadata>${mark}</metadata>`))).toEqual([
      expect.stringContaining('deployment mark'),
    ]);
  });
});

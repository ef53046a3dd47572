import { ComputeProviderError } from '../compute-provider';
import { parseDominfo, parseDomainList, powerStateOf } from './domain-state';
import { DEFAULT_DOMAIN_TEMPLATE, renderDomain, templateProblems, vncGraphics, withVncPassword } from './domain-xml';
import { virshError } from './virsh';

const LIVE = `<domain type='qemu' id='3'>
  <devices>
    <graphics type='vnc' port='5901' autoport='yes' listen='127.0.0.1'>
      <listen type='address' address='127.0.0.1'/>
    </graphics>
    <video><model type='vga'/></video>
  </devices>
</domain>`;

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
    });
    expect(xml).toContain('<name>svc-1</name>');
    expect(xml).toContain("<memory unit='MiB'>2048</memory>");
    expect(xml).toContain('<vcpu>2</vcpu>');
    expect(xml).toContain("listen='10.0.0.5' passwd='pw&lt;&gt;'");
    expect(xml).toContain('VPS service a&apos;b');
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
    expect(parseDominfo('Id:             -\nName:           svc-x\nUUID:           u-1\nState:          shut off\n')).toEqual({
      id: null,
      name: 'svc-x',
      uuid: 'u-1',
      state: 'shut off',
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
    const refused = err("error: Failed to start domain 'svc-x'\nerror: internal error: /var/lib/secret path");
    expect(refused).toBeInstanceOf(ComputeProviderError);
    expect(refused).toMatchObject({ code: 'hypervisor_error', retryable: false });
    expect(refused.message).not.toContain('/var/lib');
  });
});

import { withSshPort } from './libvirt-relocation';

describe('withSshPort (a moved domain forwards the port leased on its new host)', () => {
  const xml = `<domain><qemu:commandline><qemu:arg value='-netdev'/><qemu:arg value='user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:22005-:22'/></qemu:commandline></domain>`;

  it('sets the forwarded port, the listen address and the guest port kept', () => {
    expect(withSshPort(xml, 22017)).toContain(`hostfwd=tcp:127.0.0.1:22017-:22'`);
    expect(withSshPort(xml, 22017)).not.toContain('22005');
  });

  it('leaves the XML as it is without a port (bridged VPSes) or with the same one', () => {
    expect(withSshPort(xml, null)).toBe(xml);
    expect(withSshPort(xml, undefined)).toBe(xml);
    expect(withSshPort(xml, 22005)).toBe(xml);
    const bridged = `<domain><interface type='bridge'><source bridge='br0'/></interface></domain>`;
    expect(withSshPort(bridged, 22017)).toBe(bridged);
  });
});

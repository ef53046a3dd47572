import { LibvirtConnections } from './libvirt-connections';

describe('LibvirtConnections (issue 40)', () => {
  const libvirt = { uri: 'qemu:///system', regionUris: { 'eu-central': 'qemu+ssh://root@kvm1/system' }, vncListen: '127.0.0.1' };
  const host = { id: 'h1', name: 'kvm7', uri: 'qemu+ssh://root@kvm7/system', vncListen: '10.0.0.7', state: 'enabled' as const };

  it('a VPS placed on a host goes to that host, whatever its region names', () => {
    const connections = new LibvirtConnections(libvirt);
    expect(connections.uriOf({ region: 'eu-central', host })).toBe(host.uri);
    expect(connections.vncListenOf({ host })).toBe('10.0.0.7');
    expect(connections.vncListenOf({ host: { ...host, vncListen: null } })).toBe('127.0.0.1');
  });

  it('a VPS without a host goes to its region’s configured hypervisor, else LIBVIRT_URI, as before hosts', () => {
    const connections = new LibvirtConnections(libvirt);
    expect(connections.uriOf({ region: 'eu-central', host: null })).toBe('qemu+ssh://root@kvm1/system');
    expect(connections.uriOf({ region: 'us-east' })).toBe('qemu:///system');
    expect(connections.vncListenOf({})).toBe('127.0.0.1');
  });

  it('lists the configured hypervisors and the hosts, each once', async () => {
    const connections = new LibvirtConnections(libvirt, { uris: () => Promise.resolve([host.uri, 'qemu:///system']) });
    expect(await connections.all()).toEqual(['qemu:///system', 'qemu+ssh://root@kvm1/system', host.uri]);
    expect(await new LibvirtConnections(libvirt).all()).toEqual(['qemu:///system', 'qemu+ssh://root@kvm1/system']);
  });
});

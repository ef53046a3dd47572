import type { HostCapacity } from './host.entity';
import { fits, rankHosts, vcpuLimit } from './placement';

const host = (name: string, used: Partial<HostCapacity> = {}, size: Partial<HostCapacity> = {}): HostCapacity => ({
  id: `id-${name}`,
  name,
  vcpus: 8,
  cpuOvercommit: 1,
  memoryMb: 16_384,
  diskGb: 400,
  usedVcpus: 0,
  usedMemoryMb: 0,
  usedDiskGb: 0,
  ...size,
  ...used,
});
const small = { vcpus: 2, memoryMb: 2048, diskGb: 40 };
const names = (hosts: HostCapacity[]) => hosts.map((h) => h.name);

describe('placement (issue 40)', () => {
  const hosts = [
    host('kvm1', { usedVcpus: 4, usedMemoryMb: 8192, usedDiskGb: 200 }),
    host('kvm2'),
    host('kvm3', { usedVcpus: 6, usedMemoryMb: 12_288, usedDiskGb: 300 }),
  ];

  it('spread puts the VPS on the emptiest host', () => {
    expect(names(rankHosts(hosts, small, 'spread'))).toEqual(['kvm2', 'kvm1', 'kvm3']);
  });

  it('pack puts it on the fullest host that still has room', () => {
    expect(names(rankHosts(hosts, small, 'pack'))).toEqual(['kvm3', 'kvm1', 'kvm2']);
  });

  it('counts the fullest resource: a host with free CPUs but no memory left is full', () => {
    const tight = [host('mem-full', { usedMemoryMb: 15_360 }), host('roomy', { usedVcpus: 4 })];
    expect(names(rankHosts(tight, small, 'spread'))).toEqual(['roomy']);
    expect(names(rankHosts(tight, small, 'pack'))).toEqual(['roomy']);
  });

  it('leaves out every host without room for any one resource: no host is no room', () => {
    const full = [host('cpu', { usedVcpus: 7 }), host('mem', { usedMemoryMb: 15_000 }), host('disk', { usedDiskGb: 361 })];
    expect(rankHosts(full, small, 'spread')).toEqual([]);
    expect(rankHosts([], small, 'pack')).toEqual([]);
  });

  it('takes a host to exactly its capacity, not beyond', () => {
    expect(fits(host('edge', { usedVcpus: 6, usedMemoryMb: 14_336, usedDiskGb: 360 }), small)).toBe(true);
    expect(fits(host('over', { usedVcpus: 7, usedMemoryMb: 14_336, usedDiskGb: 360 }), small)).toBe(false);
  });

  it('multiplies the vCPUs by the overcommit (memory and disk are never overcommitted)', () => {
    const overcommitted = host('oc', { usedVcpus: 14 }, { vcpus: 8, cpuOvercommit: 2 });
    expect(vcpuLimit(overcommitted)).toBe(16);
    expect(fits(overcommitted, small)).toBe(true);
    expect(fits({ ...overcommitted, usedVcpus: 15 }, small)).toBe(false);
    expect(vcpuLimit(host('frac', {}, { vcpus: 3, cpuOvercommit: 1.5 }))).toBe(4);
    expect(fits(host('mem', { usedMemoryMb: 15_000 }, { cpuOvercommit: 4 }), small)).toBe(false);
  });

  it('breaks ties by name, so every replica ranks the same way', () => {
    const twins = [host('kvm9'), host('kvm10'), host('kvm1')];
    expect(names(rankHosts(twins, small, 'spread'))).toEqual(['kvm1', 'kvm10', 'kvm9']);
    expect(names(rankHosts(twins, small, 'pack'))).toEqual(['kvm1', 'kvm10', 'kvm9']);
  });
});

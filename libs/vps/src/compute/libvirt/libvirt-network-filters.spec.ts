import { readFile } from 'node:fs/promises';
import { ComputeProviderError } from '../compute-provider';
import { GuestFirewalls } from '../guest-firewalls';
import { NetworkFilters } from './libvirt-network-filters';
import type { Virsh } from './virsh';

const SERVICE = '3f1c2a9e-8b7d-4c6e-9a1f-2b3c4d5e6f70';
const FIREWALL = { id: 'a1b2c3d4-0000-4000-8000-000000000001', rules: [] };

/** The filters each `virsh nwfilter-define` defined, by name, in order; `fail` answers every other call. */
function filtersOn(fail?: ComputeProviderError) {
  const defined: string[] = [];
  const virsh = {
    run: async (_uri: string, args: string[]) => {
      if (args[0] === 'nwfilter-define') defined.push(/name='([^']+)'/.exec(await readFile(args[1], 'utf8'))![1]);
      else if (fail) throw fail;
      return '';
    },
  } as unknown as Virsh;
  const firewalls = new GuestFirewalls();
  firewalls.register(() => Promise.resolve([FIREWALL]));
  return { defined, filters: new NetworkFilters(virsh, firewalls, 1000) };
}

describe('NetworkFilters', () => {
  it("defines the VPS's firewalls, then its own filter, before a domain that references it", async () => {
    const { defined, filters } = filtersOn();
    await filters.beforeDefine(
      'qemu:///system',
      SERVICE,
      `<interface type='bridge'><filterref filter='hosting-vps-${SERVICE}'/></interface>`,
    );
    expect(defined).toEqual([`hosting-fw-${FIREWALL.id}`, `hosting-vps-${SERVICE}`]);
  });

  it('defines nothing for a domain without the reference (user networking)', async () => {
    const { defined, filters } = filtersOn();
    await filters.beforeDefine('qemu:///system', SERVICE, `<domain><qemu:commandline/></domain>`);
    expect(defined).toEqual([]);
  });

  it("leaves a filter libvirt will not remove, but not a host it cannot reach, when the VPS's domain is gone", async () => {
    await expect(
      filtersOn(new ComputeProviderError('hypervisor_error', 'in use')).filters.remove('qemu:///system', SERVICE),
    ).resolves.toBeUndefined();
    const unreachable = new ComputeProviderError('hypervisor_unavailable', 'down', true);
    await expect(filtersOn(unreachable).filters.remove('qemu:///system', SERVICE)).rejects.toBe(unreachable);
  });
});

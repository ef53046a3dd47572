import { Readable } from 'node:stream';
import { ComputeProviderError, InstanceRef, RestoredMachine } from '../compute-provider';
import type { DeploymentMarks } from './deployment-marks';
import type { LibvirtDomains } from './libvirt-domains';
import { DefineDomain, LibvirtRestore } from './libvirt-restore';
import type { StoragePool } from './storage-pool';

const SERVICE = '5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d';
const instance: InstanceRef = { serviceId: SERVICE, providerRef: `svc-${SERVICE}`, region: 'eu-central', host: null };
const machine: RestoredMachine = {
  seed: { instanceId: `iid-${SERVICE}`, hostname: 'web-1', sshKeys: ['ssh-ed25519 AAAA k'] },
  network: { mode: 'user', mac: '52:54:00:00:00:01', sshHost: '127.0.0.1', sshPort: 22001 },
  vcpus: 2,
  memoryMb: 2048,
};
const domainInfo = { name: `svc-${SERVICE}`, uuid: 'u', id: '7', state: 'running', vcpus: 2, memoryKiB: 2097152 };

/** A hypervisor that has lost what `lost` names; every step taken is listed in `steps`. */
function hypervisor(lost: { domain?: boolean; seed?: boolean }) {
  const steps: string[] = [];
  let defined = !lost.domain;
  const domains = {
    uriOf: () => 'qemu:///system',
    domainOf: () => `svc-${SERVICE}`,
    info: () =>
      defined ? Promise.resolve(domainInfo) : Promise.reject(new ComputeProviderError('not_found', 'The machine does not exist.')),
    exists: () => Promise.resolve(defined),
    powerOffOnce: () => Promise.resolve(void steps.push('power off')),
    startOnce: () => Promise.resolve(void steps.push(defined ? 'start' : 'start (undefined!)')),
    run: (_ref: InstanceRef, args: string[]) => Promise.resolve(void steps.push(`${args[0]} ${args[4]}`)),
  } as unknown as LibvirtDomains;
  const pool = {
    name: 'default',
    ensure: () => Promise.resolve(),
    remove: (_uri: string, volume: string) => Promise.resolve(void steps.push(`remove ${volume}`)),
    exists: (_uri: string, volume: string) => Promise.resolve(!(lost.seed && volume.endsWith('-seed.iso'))),
    upload: (_uri: string, volume: string) => Promise.resolve(void steps.push(`upload ${volume}`)),
    sizes: () => Promise.resolve({ capacity: 1, allocation: 1 }),
  } as unknown as StoragePool;
  const marks = { refuseForeign: () => Promise.resolve() } as unknown as DeploymentMarks;
  const define: DefineDomain = (_ref, domain) => {
    defined = true;
    steps.push(`define ${domain.name} ${domain.vcpus} ${domain.memoryMb} ${domain.network?.mode}`);
    return Promise.resolve();
  };
  // No ISO tool and no virsh: the seed's file and the backup's stream are never read here.
  const io = {
    upload: () => Promise.resolve(),
    seedIso: <T>(_files: unknown, use: (path: string, size: number) => Promise<T>) => use('/seed.iso', 1),
  };
  return { steps, restores: new LibvirtRestore(domains, pool, marks, define, 1000, () => null, io) };
}

const open = () => Promise.resolve(Readable.from([]));

describe('LibvirtRestore', () => {
  it('writes the seed again when the hypervisor lost it, before the domain starts', async () => {
    const { steps, restores } = hypervisor({ seed: true });
    await restores.restore(instance, open, 1024, machine);
    expect(steps).toEqual([
      'power off',
      `remove svc-${SERVICE}-root.qcow2`,
      `vol-create-as svc-${SERVICE}-root.qcow2`,
      `upload svc-${SERVICE}-seed.iso`,
      'start',
    ]);
  });

  it('keeps a seed that is there, and the domain as it is defined', async () => {
    const { steps, restores } = hypervisor({});
    await restores.restore(instance, open, 1024, machine);
    expect(steps).toEqual(['power off', `remove svc-${SERVICE}-root.qcow2`, `vol-create-as svc-${SERVICE}-root.qcow2`, 'start']);
  });

  it('defines a domain that is gone with the recorded size and network, then starts it', async () => {
    const { steps, restores } = hypervisor({ domain: true, seed: true });
    await restores.restore(instance, open, 1024, machine);
    expect(steps.slice(-3)).toEqual([`upload svc-${SERVICE}-seed.iso`, `define svc-${SERVICE} 2 2048 user`, 'start']);
  });

  it('refuses a domain that is gone without a size on record, before the disk is touched', async () => {
    const { steps, restores } = hypervisor({ domain: true });
    const refused = restores.restore(instance, open, 1024, { ...machine, vcpus: null, memoryMb: null });
    await expect(refused).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('its size is not on record') });
    expect(steps).toEqual([]);
  });
});

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibvirtConnections } from './libvirt-connections';
import { LibvirtDomains } from './libvirt-domains';
import { Virsh } from './virsh';

/**
 * A stand-in for virsh: a script that logs its subcommand and answers as libvirtd did in the soak
 * (issue 57): the domain was paused while libvirt started it, and running by the time it was resumed.
 */
describe('LibvirtDomains.powerOn', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'virsh-stand-in-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const domainsWith = (resume: 'refused' | 'refused-still-paused'): LibvirtDomains => {
    const script = join(dir, 'virsh');
    const state = resume === 'refused' ? 'running' : 'paused';
    writeFileSync(
      script,
      `#!/bin/sh
for arg; do case "$arg" in resume|dominfo) cmd=$arg;; esac; done
echo "$cmd" >> ${dir}/calls
if [ "$cmd" = resume ]; then echo "error: Failed to resume domain 'svc-1'" >&2; echo "error: Requested operation is not valid: domain is already running" >&2; exit 1; fi
printf 'Id:             7\\nName:           svc-1\\nUUID:           00000000-0000-0000-0000-000000000001\\nState:          ${state}\\nCPU(s):         1\\nMax memory:     65536 KiB\\n'
`,
    );
    chmodSync(script, 0o755);
    const connections = { uriOf: () => 'qemu:///system' } as unknown as LibvirtConnections;
    return new LibvirtDomains(connections, new Virsh(90, script), 5_000);
  };
  const paused = { name: 'svc-1', uuid: '00000000-0000-0000-0000-000000000001', id: '7', state: 'paused', vcpus: 1, memoryKiB: 65536 };
  const instance = { serviceId: '1', region: 'test', providerRef: 'svc-1', host: null };
  const calls = () => readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n');

  it('counts a resume refused because the domain already runs as done', async () => {
    await expect(domainsWith('refused').powerOn(instance, paused)).resolves.toBeUndefined();
    expect(calls()).toEqual(['resume', 'dominfo']);
  });

  it('still fails a resume refused while the domain stays paused', async () => {
    await expect(domainsWith('refused-still-paused').powerOn(instance, paused)).rejects.toMatchObject({ code: 'hypervisor_error' });
  });
});

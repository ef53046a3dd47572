import { ComputeProviderError, InstanceRef } from '../compute-provider';
import { decodeSnapshotTask, DiskSnapshots, encodeSnapshotTask, isSnapshotTask, jobOf } from './disk-snapshots';
import type { LibvirtDomains } from './libvirt-domains';
import type { StoragePool } from './storage-pool';

describe('snapshot tasks', () => {
  const task = { since: 1795686007570, imageId: '9be0bfb0-df71-4d7b-8894-ae1ded8da346', mode: 'live', consistency: 'filesystem' } as const;

  it('round-trips through the handle the runner stores, and is told apart from a power task handle', () => {
    const handle = encodeSnapshotTask(task);
    expect(isSnapshotTask(handle)).toBe(true);
    expect(decodeSnapshotTask(handle)).toEqual(task);
    expect(isSnapshotTask('stop:1795686007570:-')).toBe(false);
  });

  it('refuses a handle it did not make', () => {
    for (const handle of [
      'snapshot:',
      'snapshot:x:9be0bfb0-df71-4d7b-8894-ae1ded8da346:live:crash',
      'snapshot:1:not-an-id:live:crash',
      'snapshot:1:9be0bfb0-df71-4d7b-8894-ae1ded8da346:other:crash',
    ])
      expect(() => decodeSnapshotTask(handle)).toThrow(expect.objectContaining({ code: 'task_not_found' }));
  });

  it('reads virsh domjobinfo as libvirt 9.0 prints it', () => {
    expect(jobOf('Job type:         Unbounded   \nOperation:        Backup      \nTime elapsed:     122          ms\n')).toEqual({
      type: 'Unbounded',
      operation: 'Backup',
      done: null,
    });
    expect(jobOf('Job type:         Completed   \nOperation:        Backup      \n')).toEqual({
      type: 'Completed',
      operation: 'Backup',
      done: null,
    });
    expect(jobOf('Job type:         None        \n')).toEqual({ type: 'None', operation: null, done: null });
  });

  it("reads how much of the disk a backup job has copied, in libvirt's units", () => {
    const running = [
      'Job type:         Unbounded',
      'Operation:        Backup',
      'Time elapsed:     2042         ms',
      'Data processed:   256.000 MiB',
      'Data remaining:   768.000 MiB',
      'Data total:       1.000 GiB',
    ].join('\n');
    expect(jobOf(running)).toEqual({ type: 'Unbounded', operation: 'Backup', done: 0.25 });
    expect(
      jobOf('Job type:         Unbounded\nOperation:        Backup\nData processed:   0.000 B\nData total:       0.000 B\n').done,
    ).toBeNull();
  });
});

describe('DiskSnapshots.begin on a running domain', () => {
  const service = '5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d';
  const imageId = '9be0bfb0-df71-4d7b-8894-ae1ded8da346';
  const instance: InstanceRef = { serviceId: service, providerRef: `svc-${service}`, region: 'eu-central', host: null };
  const domain = { name: `svc-${service}`, uuid: 'u', id: '7', state: 'running', vcpus: 1, memoryKiB: 65536 };
  const target = `/pool/img-${imageId}`;

  /** A directory pool as libvirt keeps it: files on disk, and the list of volumes it knows, read again on refresh. */
  function hypervisor(leftBehind: boolean) {
    const files = new Set<string>(leftBehind ? [target] : []);
    const listed = new Set<string>();
    const pool = {
      path: () => Promise.resolve('/pool'),
      refresh: () => Promise.resolve(void files.forEach((f) => listed.add(f))),
      // virsh vol-delete of a volume the pool does not list answers "not found", which counts as gone.
      remove: (_uri: string, volume: string) => {
        const file = `/pool/${volume}`;
        if (listed.delete(file)) files.delete(file);
        return Promise.resolve();
      },
    } as unknown as StoragePool;
    const domains = {
      uriOf: () => 'qemu:///system',
      run: (_ref: InstanceRef, args: string[]) => {
        if (args[0] === 'domjobinfo') return Promise.resolve('Job type:         None\n');
        if (args[0] === 'domblklist') return Promise.resolve(`vda  /pool/svc-${service}-root.qcow2\n`);
        if (args[0] === 'backup-begin') {
          if (files.has(target)) return Promise.reject(new ComputeProviderError('hypervisor_error', 'The hypervisor refused the request.'));
          files.add(target); // written by the job, not listed by the pool
          return Promise.resolve('Backup started\n');
        }
        return Promise.resolve('');
      },
    } as unknown as LibvirtDomains;
    return new DiskSnapshots(domains, pool);
  }

  it("begins the job when an earlier try's job left its target behind, unlisted by the pool", async () => {
    await expect(hypervisor(true).begin(instance, domain, imageId)).resolves.toMatchObject({ imageId, mode: 'live' });
  });

  it('begins the job on a pool with nothing left behind', async () => {
    await expect(hypervisor(false).begin(instance, domain, imageId)).resolves.toMatchObject({ imageId, mode: 'live' });
  });
});

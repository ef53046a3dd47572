import { decodeSnapshotTask, encodeSnapshotTask, isSnapshotTask, jobOf } from './disk-snapshots';

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

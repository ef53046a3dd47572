import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BackupCleanup } from '../../libs/vps/src/backups/backup-cleanup';
import { ImageVolumesSweep } from '../../libs/vps/src/images/image-volumes-sweep';
import { createAccount } from '../factories/accounts';
import { createImage, qcow2Header } from '../factories/images';
import { createService } from '../factories/services';
import { libvirtCompute } from '../support/hosts';
import { libvirtTestsEnabled } from '../support/libvirt';
import { emptyOwnLibvirtd, virshOn } from '../support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../support/own-libvirtd';
import { startTestApp, TestApp } from '../support/test-app';

const SLOW = 120_000;

/**
 * The volumes deleted images and ended backups leave on a hypervisor (the soak's audit found an
 * `img-<id>` of neither an available image nor a running backup): the sweeps remove them, listed
 * or not, and keep those of available images, of running backups and of another deployment's.
 * No guest boots: a libvirtd of the test's own and its pool.
 */
(libvirtTestsEnabled() ? describe : describe.skip)('libvirt: the volumes of deleted images are swept', () => {
  let daemon: OwnLibvirtd;
  let t: TestApp;
  let poolDir: string;

  beforeAll(async () => {
    daemon = await startOwnLibvirtd();
    poolDir = join(daemon.dir, 'data', 'pool');
    await virsh('pool-define-as', 'default', 'dir', '--target', poolDir);
    await virsh('pool-build', 'default');
    await virsh('pool-start', 'default');
    t = await startTestApp(libvirtCompute({ LIBVIRT_URI: daemon.uri() }));
  }, SLOW);

  afterAll(async () => {
    if (daemon) await emptyOwnLibvirtd(daemon);
    await t?.close();
    await daemon?.stop();
  }, SLOW);

  const virsh = (...args: string[]): Promise<string> => virshOn(daemon, ...args);
  const volumes = async () => {
    await virsh('pool-refresh', 'default');
    return (await virsh('vol-list', 'default'))
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0])
      .filter(Boolean);
  };

  it('removes the volume of a deleted image, listed or written beside the pool; keeps an available image and an unknown one', async () => {
    const available = await createImage(t, { gib: 1 });
    const listed = await createImage(t, { gib: 1 });
    const unlisted = await createImage(t, { gib: 1 });
    // What a failed snapshot leaves: its image deleted, and a file the backup job wrote that the pool has not listed.
    await virsh('vol-delete', '--pool', 'default', `img-${unlisted.id}`);
    writeFileSync(join(poolDir, `img-${unlisted.id}`), qcow2Header(1));
    await t.db.query(`UPDATE images SET status = 'deleted', deleted_at = now() WHERE id IN ($1, $2)`, [listed.id, unlisted.id]);
    const foreign = `img-${randomUUID()}`;
    writeFileSync(join(poolDir, foreign), qcow2Header(1));
    // An `img-` name whose rest is no image id: never looked up, never removed.
    writeFileSync(join(poolDir, 'img-not-an-id'), qcow2Header(1));

    expect((await t.app.get(ImageVolumesSweep).sweep()).sort()).toEqual([listed.id, unlisted.id].sort());
    expect(existsSync(join(poolDir, `img-${unlisted.id}`))).toBe(false);
    expect((await volumes()).sort()).toEqual([`img-${available.id}`, foreign, 'img-not-an-id'].sort());
    expect(await t.app.get(ImageVolumesSweep).sweep()).toEqual([]);
  });

  it("removes the hypervisor copy a backup that ended left (`img-<backup id>`, unlisted); keeps a running backup's", async () => {
    const owner = await createAccount(t);
    const { id: serviceId } = await createService(t, owner.id);
    const [ended, running] = [randomUUID(), randomUUID()];
    for (const [id, status] of [
      [ended, 'failed'],
      [running, 'running'],
    ]) {
      await t.db.query(
        `INSERT INTO vps_backups (id, service_id, account_id, status, trigger, storage_key) VALUES ($1, $2, $3, $4, 'schedule', $5)`,
        [id, serviceId, owner.id, status, `vps/${serviceId}/${id}.qcow2`],
      );
      writeFileSync(join(poolDir, `img-${id}`), qcow2Header(1));
    }

    expect(await t.app.get(BackupCleanup).releaseLeftCopies()).toBe(1);
    expect(existsSync(join(poolDir, `img-${ended}`))).toBe(false);
    expect(await volumes()).toContain(`img-${running}`);
  });
});

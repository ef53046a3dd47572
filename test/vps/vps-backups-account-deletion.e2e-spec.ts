import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { BackupStore } from '../../libs/vps/src/backups/backup-store';
import { BackupsJob } from '../../libs/vps/src/backups/backups.job';
import { createAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A deleted account's VPS backups, which the operator's bucket must not keep: deleting the account
 * deletes their rows by cascade, and the next backups pass deletes their objects; another account's
 * backups stay. Simulator and local store.
 */
describe('VPS backups of a deleted account (simulator, local store)', () => {
  let t: TestApp;
  let system: { id: string; slug: string };

  beforeAll(async () => {
    t = await startTestApp({ COMPUTE_TRANSITION_DELAY_MS: '600000', BACKUP_RETENTION: '1' });
    system = await createImage(t, { gib: 2 });
  });
  afterAll(() => t.close());

  const store = () => t.app.get(BackupStore);
  const backUp = async (serviceId: string) => {
    const result = (await t.app.get(BackupRunner).run(serviceId, 'operator')) as { status: string };
    expect(result.status).toBe('available');
  };
  /** Keys the delete trigger kept for these VPSes (other files' tests may share the database). */
  const orphans = async (...serviceIds: string[]) =>
    (
      (await t.db.query(`SELECT storage_key FROM vps_backup_orphans WHERE storage_key LIKE ANY($1)`, [
        serviceIds.map((id) => `vps/${id}/%`),
      ])) as { storage_key: string }[]
    )
      .map((o) => o.storage_key)
      .sort();

  it("deleting an account leaves none of its VPSes' backups in the store after the next pass; another account's stay", async () => {
    const leaving = await createAccount(t);
    const staying = await createAccount(t);
    const gone = [await createService(t, leaving.id, { image: system.slug }), await createService(t, leaving.id, { image: system.slug })];
    const kept = await createService(t, staying.id, { image: system.slug });
    for (const vps of [...gone, kept]) await backUp(vps.id);
    await t.app.get(BackupRunner).run(gone[0].id, 'operator');
    for (const vps of [...gone, kept]) expect(await store().list(`vps/${vps.id}/`)).toHaveLength(1);
    const ids = [...gone, kept].map((vps) => vps.id);
    await t.app.get(BackupsJob).pass();
    expect(await orphans(...ids)).toEqual([]);

    await t.db.query(`DELETE FROM accounts WHERE id = $1`, [leaving.id]);
    expect(await t.db.query(`SELECT id FROM vps_backups WHERE account_id = $1`, [leaving.id])).toEqual([]);
    expect(await orphans(...ids)).toEqual((await Promise.all(gone.map((vps) => store().list(`vps/${vps.id}/`)))).flat().sort());

    await t.app.get(BackupsJob).pass();
    for (const vps of gone) expect(await store().list(`vps/${vps.id}/`)).toEqual([]);
    expect(await orphans(...ids)).toEqual([]);
    expect(await store().list(`vps/${kept.id}/`)).toHaveLength(1);
  });

  it("a backup's own deletion (retention) leaves no key behind for the pass", async () => {
    const owner = await createAccount(t);
    const vps = await createService(t, owner.id, { image: system.slug });
    await backUp(vps.id);
    await backUp(vps.id);
    expect(await store().list(`vps/${vps.id}/`)).toHaveLength(1);
    expect(await t.db.query(`SELECT id FROM vps_backups WHERE service_id = $1`, [vps.id])).toHaveLength(1);
    expect(await orphans(vps.id)).toEqual([]);
  });
});

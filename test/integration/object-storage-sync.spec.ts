import { DataSource } from 'typeorm';
import { ActivityLog } from '@app/core';
import { ObjectStorageModule } from '@app/object-storage';
import { ObjectStorageService } from '../../libs/object-storage/src/object-storage.service';
import { ObjectStorageSync } from '../../libs/object-storage/src/object-storage-sync';
import { RemakeUnmadeKeys1764000002920 } from '../../libs/object-storage/src/migrations/1764000002920-remake-unmade-keys';
import { ServiceProvisioner } from '../../libs/services/src/service-provisioner';
import { callerFor, startTestModule, TestModule } from '../support/test-module';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitForOrFail } from '../support/wait-for';

/** The gateway sync of object storage on the simulator; no queue workers run here: a spec runs the job's sync itself. */
describe('ObjectStorageSync (TestingModule on the real database)', () => {
  let m: TestModule;
  beforeAll(async () => {
    m = await startTestModule([ObjectStorageModule]);
  });
  afterAll(() => m.close());

  /** The next activity entry's transaction stops before it is recorded (so before its COMMIT) until `commit`. */
  function pauseNextRecord() {
    const activity = m.get(ActivityLog);
    const record = activity.record.bind(activity);
    let reached!: () => void;
    let commit!: () => void;
    const paused = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (commit = resolve));
    jest.spyOn(activity, 'record').mockImplementationOnce(async (manager, input) => {
      reached();
      await released;
      return record(manager, input);
    });
    return { paused, commit };
  }

  const lockWaits = async () => {
    const sql = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    const [row] = (await m.get(DataSource).query(sql)) as { n: number }[];
    return row.n;
  };

  // Two sessions at once: PostgreSQL only (the embedded database has one).
  (TEST_DATABASE_URL ? it : it.skip)(
    'a sync that waited for a rotation’s COMMIT makes the new key, so the rotation answers it (CI: a 409, and the key never made)',
    async () => {
      const accountId = await m.accountId();
      const [service] = await m.get(ServiceProvisioner).provision(accountId, { type: 'object_storage' });
      const storage = m.get(ObjectStorageService);
      const first = await storage.credentialsFor(callerFor(accountId), service.id);

      // The rotation has made its change and not committed it yet when the queued job's sync starts: it waits for the row.
      const { paused, commit } = pauseNextRecord();
      const rotated = storage.rotate(callerFor(accountId), service.id).catch((err: Error) => err);
      await paused;
      const job = m.get(ObjectStorageSync).run(service.id);
      await waitForOrFail(
        lockWaits,
        (n) => n > 0,
        5000,
        () => 'the sync did not wait for the rotation',
      );
      commit();
      await job;

      const answer = await rotated;
      expect(answer).toMatchObject({ accessKeyId: expect.not.stringMatching(first.accessKeyId), secretAccessKey: expect.any(String) });
      expect(await storage.credentialsFor(callerFor(accountId), service.id)).toEqual(answer);
    },
  );

  it('the migration after the fix makes the key such a race left unmade: the service answers its credentials again', async () => {
    const accountId = await m.accountId();
    const [service] = await m.get(ServiceProvisioner).provision(accountId, { type: 'object_storage' });
    const storage = m.get(ObjectStorageService);
    await storage.credentialsFor(callerFor(accountId), service.id);
    const db = m.get(DataSource);
    // What the race left: a key without its secret, in a version counted as applied.
    await db.query(
      `UPDATE object_storage_credentials SET access_key_id = 'UNMADE' || left(md5(service_id::text), 12), secret_sealed = NULL WHERE service_id = $1`,
      [service.id],
    );
    await db.query(`UPDATE object_storage_users SET applied_version = desired_version WHERE service_id = $1`, [service.id]);
    await expect(storage.credentialsFor(callerFor(accountId), service.id)).rejects.toMatchObject({ status: 409 });

    const runner = db.createQueryRunner();
    try {
      await new RemakeUnmadeKeys1764000002920().up(runner);
    } finally {
      await runner.release();
    }
    await m.get(ObjectStorageSync).run(service.id); // what the reconciliation scan queues for it
    expect(await storage.credentialsFor(callerFor(accountId), service.id)).toMatchObject({ secretAccessKey: expect.any(String) });
  });
});

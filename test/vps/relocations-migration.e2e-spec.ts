import { sqlRows } from '@app/core';
import { VpsRelocations1764000003900 } from '../../libs/vps/src/migrations/1764000003900-vps-relocations';
import { createAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { hostAddArgs, invalidHostUri } from '../support/hosts';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 51: vps_moves and vps_evacuations became vps_relocations. The migration is run down
 * and up again inside one transaction that is rolled back: the rows written to the two old tables
 * come out as relocations (`copy`, `backup`, `image`), their outcome and lease kept.
 */
describe('vps_relocations migration (issue 51)', () => {
  let t: TestApp;
  const region = 'eu-central';
  const cli = (...args: string[]) => runCliIn(t.app, args);

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await cli('host:remove', '--name', 'mig-a');
    await cli('host:remove', '--name', 'mig-b');
    await t.close();
  });

  it('carries the moves and the evacuations over and drops their tables', async () => {
    for (const name of ['mig-a', 'mig-b'])
      expect((await cli(...hostAddArgs(name, region, invalidHostUri(name), { vcpus: 4, memoryGb: 4, diskGb: 100 }))).code).toBe(0);
    const owner = await createAccount(t);
    const image = await createImage(t, { gib: 2 });
    const vps = (await createService(t, owner.id, { region, machines: true, image: image.slug, powerState: 'stopped' })).id;
    const migration = new VpsRelocations1764000003900();
    const runner = t.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await migration.down(runner);
      const [a, b] = (await runner.query(`SELECT id FROM hosts WHERE name IN ('mig-a', 'mig-b') ORDER BY name`)) as { id: string }[];
      await runner.query(
        `INSERT INTO vps_moves (service_id, from_host_id, from_host, to_host_id, to_host, vcpus, memory_mb, disk_gb, was_running, status, attempts, last_error)
         VALUES ($1, $2, 'mig-a', $3, 'mig-b', 1, 1024, 20, true, 'rolled_back', 3, 'the process died')`,
        [vps, a.id, b.id],
      );
      const plan = { network: null, powerState: 'running', disk: { from: 'image', imageName: 'Tiny', boot: {} } };
      await runner.query(
        `INSERT INTO vps_evacuations (service_id, from_host_id, to_host_id, status, plan, finished_at, stale_removed_at)
         VALUES ($1, $2, $3, 'rebuilt', $4, now(), now())`,
        [vps, b.id, a.id, JSON.stringify(plan)],
      );
      await runner.query(
        `INSERT INTO vps_evacuations (service_id, from_host_id, status, error_code, error_message, finished_at)
         VALUES ($1, $2, 'failed', 'no_capacity', 'No enabled host has room', now())`,
        [vps, a.id],
      );
      await migration.up(runner);
      const rows = await sqlRows(
        runner.manager,
        `SELECT source, from_host, to_host, status, was_running, attempts, error_code, last_error, stale_removed_at IS NOT NULL AS removed
           FROM vps_relocations WHERE service_id = $1 ORDER BY source, status`,
        [vps],
      );
      expect(rows).toEqual([
        {
          source: 'copy',
          from_host: 'mig-a',
          to_host: 'mig-b',
          status: 'rolled_back',
          was_running: true,
          attempts: 3,
          error_code: null,
          last_error: 'the process died',
          removed: false,
        },
        {
          source: 'image',
          from_host: 'mig-a',
          to_host: '',
          status: 'rolled_back',
          was_running: false,
          attempts: 1,
          error_code: 'no_capacity',
          last_error: 'No enabled host has room',
          removed: false,
        },
        {
          source: 'image',
          from_host: 'mig-b',
          to_host: 'mig-a',
          status: 'succeeded',
          was_running: true,
          attempts: 1,
          error_code: null,
          last_error: null,
          removed: true,
        },
      ]);
      expect(await runner.query(`SELECT to_regclass('vps_moves') AS moves, to_regclass('vps_evacuations') AS evacuations`)).toEqual([
        { moves: null, evacuations: null },
      ]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await cli('service:set-status', '--id', vps, '--status', 'terminated');
  });
});

import { Client } from 'pg';
import { DatabaseProbe } from '../../bench/soak/db-probe';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitForOrFail } from '../support/wait-for';

/**
 * The soak's database probe (bench/soak/db-probe.ts): a tick slower than its threshold is recorded
 * as a stall, with what the database's sessions waited on read while it was still slow. Here the
 * test holds a lock on the probe's own table, so the stall's evidence must name that lock. It needs
 * pg_stat_activity and connections of its own: PostgreSQL only.
 */
(TEST_DATABASE_URL ? describe : describe.skip)("the soak's database probe (PostgreSQL)", () => {
  let probe: DatabaseProbe;
  let locker: Client;

  beforeEach(async () => {
    locker = new Client({ connectionString: TEST_DATABASE_URL });
    await locker.connect();
    probe = new DatabaseProbe(TEST_DATABASE_URL!, Date.now(), 300);
  });
  afterEach(async () => {
    await probe.stop();
    await locker.query('DROP SCHEMA IF EXISTS soak_probe CASCADE');
    await locker.end();
  });

  it('records no stall while its ticks are quick, and one with the lock its insert waited on while the table is held', async () => {
    probe.start();
    await ticksReach(2);
    expect(probe.stalls).toEqual([]);

    await holdProbeTable(1_500);

    const [stall] = await stallsReach(1);
    expect(stall.statement).toBe('INSERT and COMMIT of one row');
    expect(stall.ms).toBeGreaterThanOrEqual(300);
    expect(stall.waits['Lock:relation']).toBe(1);
    expect(probe.during(stall.at, stall.at)).toEqual([stall]);
    expect(probe.during(stall.at + stall.ms + 1, stall.at + stall.ms + 5_000)).toEqual([]);
  });

  it("reads the evidence again after its connections were cut (a restart's), not a stall without it", async () => {
    probe.start();
    await ticksReach(1);
    await holdProbeTable(1_500);
    await stallsReach(1);

    await locker.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'soak-probe'");
    await ticksReach(probe.ticks + 1);
    await holdProbeTable(1_500);

    const stalls = await stallsReach(2);
    expect(stalls[1].waits['Lock:relation']).toBe(1);
  });

  const ticksReach = (n: number) =>
    waitForOrFail(
      async () => probe.ticks,
      (t) => t >= n,
      10_000,
      (t) => `${t} ticks, not ${n}`,
    );
  const stallsReach = (n: number) =>
    waitForOrFail(
      async () => probe.stalls,
      (s) => s.length >= n,
      10_000,
      (s) => `${s.length} stalls, not ${n}`,
    );

  const holdProbeTable = async (ms: number) => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE soak_probe.ticks IN ACCESS EXCLUSIVE MODE');
    await new Promise((resolve) => setTimeout(resolve, ms));
    await locker.query('COMMIT');
  };
});

import { sqlRows } from '@app/core';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { BackupStore, backupKey } from '../../libs/vps/src/backups/backup-store';
import { RelocationJob } from '../../libs/vps/src/fleet/relocation/relocation.job';
import { RelocationStart } from '../../libs/vps/src/fleet/relocation/relocation-start';
import { HostsRepository } from '../../libs/vps/src/hosts/hosts.repository';
import { HostHealthJob } from '../../libs/vps/src/fleet/host-health.job';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { notificationsOf } from '../factories/notifications';
import { createService } from '../factories/services';
import { hostAddArgs, invalidHostUri } from '../support/hosts';
import { runCliIn } from '../support/run-cli-in-app';
import { TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A host that dies, on the simulator (hosts are rows; the backup store is the local
 * one and a restore reads the whole object): `host:evacuate` makes each VPS of a dead host again
 * on another host of its region, from its latest backup or from its image, tells its customer
 * which, and leaves the ones it cannot place where they were for the next run. The hosts of this
 * file are removed at its end (the worker's database is shared with the files after it).
 */
describe('host:evacuate (issue 40, simulator)', () => {
  const region = 'eu-central';
  const smtp = new TestSmtpServer();
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let image: { id: string; slug: string };
  const vps: Record<'backedUp' | 'plain' | 'big' | 'lostBackup' | 'resumed', string> = {
    backedUp: '',
    plain: '',
    big: '',
    lostBackup: '',
    resumed: '',
  };
  let latestBackup: string;
  const cli = (...args: string[]) => runCliIn(t.app, args);
  const add = (name: string, vcpus: number, memoryGb: number) =>
    cli(...hostAddArgs(name, region, invalidHostUri(name), { vcpus, memoryGb, diskGb: 200 }));
  const hostOf = async (serviceId: string) =>
    (
      await sqlRows<{ name: string | null }>(
        t.db,
        `SELECT h.name FROM vps_instances i LEFT JOIN hosts h ON h.id = i.host_id WHERE i.service_id = $1`,
        [serviceId],
      )
    )[0]?.name;
  const listed = async (name: string) => (await cli('host:list')).lines.find((line) => line.name === name) as Record<string, unknown>;

  beforeAll(async () => {
    await smtp.start();
    t = await startTestApp({ SMTP_URL: smtp.url });
    owner = await createAccount(t);
    stranger = await createAccount(t);
    image = await createImage(t, { gib: 2 });
    expect((await add('ev-a', 4, 4)).code).toBe(0);
    // One at a time: the evacuation takes them in the order they were made.
    vps.backedUp = (await createService(t, owner.id, { region, machines: true, image: image.slug, powerState: 'running' })).id;
    vps.plain = (await createService(t, owner.id, { region, machines: true, image: image.slug, powerState: 'stopped' })).id;
    vps.big = (
      await createService(t, owner.id, { region, machines: true, image: image.slug, powerState: 'stopped', productSlug: 'vps-s' })
    ).id;
    for (const id of [vps.backedUp, vps.plain, vps.big]) expect(await hostOf(id)).toBe('ev-a');
    const runner = t.app.get(BackupRunner);
    expect(await runner.run(vps.backedUp, 'operator')).toMatchObject({ status: 'available' });
    latestBackup = ((await runner.run(vps.backedUp, 'operator')) as { backupId: string }).backupId;
  });

  afterAll(async () => {
    for (const id of Object.values(vps)) if (id) await cli('service:set-status', '--id', id, '--status', 'terminated');
    for (const name of ['ev-a', 'ev-b', 'ev-c']) await cli('host:remove', '--name', name);
    await t.close();
    await smtp.stop();
  });

  it('refuses a host that answers (exit 65, invalid_state): enabled even with --force, in maintenance without it; an unknown host', async () => {
    const refused = await cli('host:evacuate', '--name', 'ev-a');
    expect(refused.code).toBe(65);
    expect(refused.stderr).toMatch(/^invalid_state: Host ev-a is enabled: only an unreachable host is evacuated/);
    expect((await cli('host:evacuate', '--name', 'ev-a', '--force')).code).toBe(65);
    // In maintenance only --force (the operator knows it is dead) takes it.
    expect((await cli('host:set', '--name', 'ev-a', '--state', 'maintenance')).code).toBe(0);
    expect((await cli('host:evacuate', '--name', 'ev-a')).stderr).toMatch(/^invalid_state: Host ev-a is maintenance/);
    expect((await cli('host:set', '--name', 'ev-a', '--state', 'enabled')).code).toBe(0);
    expect((await cli('host:evacuate', '--name', 'nope')).stderr).toMatch(/^not_found/);
    expect((await cli('host:evacuate')).code).toBe(64);
    for (const id of [vps.backedUp, vps.plain, vps.big]) expect(await hostOf(id)).toBe('ev-a');
  });

  it('restores a VPS from its latest backup and rebuilds one without from its image; one with no room fails and stays (exit 65)', async () => {
    // What the health check does after the grace (the simulator's hosts always answer it).
    await t.db.query(`UPDATE hosts SET state = 'unreachable', state_before_unreachable = 'enabled' WHERE name = 'ev-a'`);
    // Room for the two vps-xs, not for the vps-s after them.
    expect((await add('ev-b', 3, 2)).code).toBe(0);

    const run = await cli('host:evacuate', '--name', 'ev-a');
    expect(run.code).toBe(65);
    expect(run.stderr).toMatch(/1 of 3 VPSes were not evacuated/);
    expect(run.lines).toEqual([
      { id: vps.backedUp, from: 'ev-a', to: 'ev-b', outcome: 'restored', backupId: latestBackup },
      { id: vps.plain, from: 'ev-a', to: 'ev-b', outcome: 'rebuilt', backupId: null },
      {
        id: vps.big,
        from: 'ev-a',
        to: null,
        outcome: 'failed',
        backupId: null,
        error: { code: 'no_capacity', message: expect.stringContaining('No enabled host of region eu-central has room') },
      },
    ]);
    expect(await hostOf(vps.backedUp)).toBe('ev-b');
    expect(await hostOf(vps.plain)).toBe('ev-b');
    expect(await hostOf(vps.big)).toBe('ev-a');
    expect(await listed('ev-a')).toMatchObject({ state: 'unreachable', vpsCount: 1, vcpus: { used: 2 }, memoryMb: { used: 2048 } });
    expect(await listed('ev-b')).toMatchObject({ vpsCount: 2, vcpus: { used: 2 }, memoryMb: { used: 2048, free: 0 } });

    const shown = async (id: string, bearer = owner.bearer) => (await t.get(`/api/services/${id}`, bearer).expect(200)).body.instance;
    expect(await shown(vps.backedUp)).toMatchObject({ powerState: 'running' });
    expect((await shown(vps.backedUp)).hostReachable).toBeUndefined();
    expect(await shown(vps.plain)).toMatchObject({ powerState: 'stopped' });
    expect(await shown(vps.big)).toMatchObject({ powerState: 'stopped', hostReachable: false });
  });

  it('tells each customer which happened: a notification, a mail and an activity entry; another account sees none of it', async () => {
    const restoredMail = await smtp.waitForMail(owner.email, /was restored from a backup on another host/);
    expect(restoredMail.body).toMatch(/from its backup of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    expect(restoredMail.body).toContain('is running again');
    const rebuiltMail = await smtp.waitForMail(owner.email, /was rebuilt from its image on another host/);
    expect(rebuiltMail.body).toContain('the data on its disk is lost');
    const notices = (await notificationsOf(t, owner)).filter((n) => n.type === 'instance_evacuated');
    expect(notices.map((n) => n.entity?.id).sort()).toEqual([vps.backedUp, vps.plain].sort());
    expect(notices.find((n) => n.entity?.id === vps.plain)?.body).toContain(`from image`);
    const events = await t.get(`/api/events?entityType=service&entityId=${vps.backedUp}`, owner.bearer).expect(200);
    const entry = events.body.data.find((e: { action: string }) => e.action === 'instance.evacuate');
    expect(entry).toMatchObject({ details: { outcome: 'restored', backupId: latestBackup } });

    expect((await notificationsOf(t, stranger)).filter((n) => n.type === 'instance_evacuated')).toEqual([]);
    for (const id of [vps.backedUp, vps.plain]) await t.get(`/api/services/${id}`, stranger.bearer).expect(404);
    expect(smtp.received.filter((m) => m.to.includes(stranger.email))).toEqual([]);
  });

  it('a second run goes on with what is left once there is room; a third finds nothing to do', async () => {
    expect((await add('ev-c', 4, 4)).code).toBe(0);
    const again = await cli('host:evacuate', '--name', 'ev-a');
    expect(again.stderr).toBe('');
    expect(again.lines).toEqual([{ id: vps.big, from: 'ev-a', to: 'ev-c', outcome: 'rebuilt', backupId: null }]);
    expect(await listed('ev-a')).toMatchObject({ vpsCount: 0, vcpus: { used: 0 }, memoryMb: { used: 0 }, diskGb: { used: 0 } });
    expect(await listed('ev-c')).toMatchObject({ vpsCount: 1, vcpus: { used: 2 } });
    expect(await cli('host:evacuate', '--name', 'ev-a')).toMatchObject({ code: 0, lines: [] });
  });

  it('once the old host answers again, what the evacuation left there is removed, once', async () => {
    const health = t.app.get(HostHealthJob);
    await health.check();
    expect(await listed('ev-a')).toMatchObject({ state: 'enabled' });
    const rows = await sqlRows<{ source: string; removed: boolean }>(
      t.db,
      `SELECT source, stale_removed_at IS NOT NULL AS removed FROM vps_relocations
        WHERE service_id = ANY($1::uuid[]) AND status = 'succeeded' ORDER BY source`,
      [[vps.backedUp, vps.plain, vps.big]],
    );
    expect(rows).toEqual([
      { source: 'backup', removed: true },
      { source: 'image', removed: true },
      { source: 'image', removed: true },
    ]);
  });

  it('a backup the store cannot give fails that VPS: the room held goes back, it stays where it was, in its state', async () => {
    vps.lostBackup = (await createService(t, owner.id, { region, machines: true, image: image.slug, powerState: 'running' })).id;
    const host = (await hostOf(vps.lostBackup))!;
    const made = (await t.app.get(BackupRunner).run(vps.lostBackup, 'operator')) as { backupId: string };
    await t.app.get(BackupStore).remove(backupKey(vps.lostBackup, made.backupId));
    await t.db.query(`UPDATE hosts SET state = 'unreachable', state_before_unreachable = 'enabled' WHERE name = $1`, [host]);
    const before = await cli('host:list');
    const run = await cli('host:evacuate', '--name', host);
    expect(run.code).toBe(65);
    expect(run.lines).toEqual([
      expect.objectContaining({
        id: vps.lostBackup,
        from: host,
        to: null,
        outcome: 'failed',
        error: expect.objectContaining({ code: 'backup_unavailable' }),
      }),
    ]);
    expect((await cli('host:list')).lines).toEqual(before.lines);
    expect(await hostOf(vps.lostBackup)).toBe(host);
    expect((await t.get(`/api/services/${vps.lostBackup}`, owner.bearer).expect(200)).body.instance).toMatchObject({
      powerState: 'running',
      hostReachable: false,
    });
    await cli('service:set-status', '--id', vps.lostBackup, '--status', 'terminated');
    await t.db.query(`UPDATE hosts SET state = 'enabled', state_before_unreachable = NULL WHERE name = $1`, [host]);
  });

  it('an evacuation whose run died after holding the room is finished by the next run, toward the same host, the room counted once', async () => {
    vps.resumed = (await createService(t, owner.id, { region, machines: true, image: image.slug, powerState: 'stopped' })).id;
    const from = (await hostOf(vps.resumed))!;
    await t.db.query(`UPDATE hosts SET state = 'unreachable', state_before_unreachable = 'enabled' WHERE name = $1`, [from]);
    const used = async () => Object.fromEntries((await cli('host:list')).lines.map((h) => [h.name, (h.vcpus as { used: number }).used]));
    const start = await used();
    // What a run that died after its first transaction leaves: the room held, the plan recorded, the VPS starting (its job not queued here).
    const notQueued = jest.spyOn(t.app.get(RelocationJob), 'enqueue').mockResolvedValue();
    const begun = await t.app.get(RelocationStart).recreate(vps.resumed, (await t.app.get(HostsRepository).byName(from))!);
    notQueued.mockRestore();
    expect(begun).not.toBeNull();
    const to = begun!.to;
    expect((await t.get(`/api/services/${vps.resumed}`, owner.bearer).expect(200)).body.instance.powerState).toBe('starting');
    const run = await cli('host:evacuate', '--name', from);
    expect(run.stderr).toBe('');
    expect(run.lines).toEqual([{ id: vps.resumed, from, to, outcome: 'rebuilt', backupId: null }]);
    expect(await used()).toEqual({ ...start, [from]: start[from] - 1, [to]: start[to] + 1 });
    expect((await t.get(`/api/services/${vps.resumed}`, owner.bearer).expect(200)).body.instance.powerState).toBe('stopped');
    await t.db.query(`UPDATE hosts SET state = 'enabled', state_before_unreachable = NULL WHERE name = $1`, [from]);
  });
});

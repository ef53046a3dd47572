import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { runCli } from '../support/run-cli';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { freshDataDir } from '../support/test-database';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * The operator's `backup:run` against a running API server as production runs them (two processes,
 * the simulator): on the embedded database the server owns the data directory, so the command runs
 * in the server (issue 58); on PostgreSQL in the command's own process. Either way the backup is
 * made now.
 */
describe('backup:run while the API server runs', () => {
  const email = `backup-run-${Date.now()}@example.test`;
  let dataDir: string;
  let server: ServerProcess;
  let apiKey: string;
  let writeKey: string;
  let serviceId: string;
  const env = () => ({ DATA_DIR: dataDir });
  const ok = async (args: string[]) => {
    const res = await runCli(args, env());
    if (res.code !== 0) throw new Error(`${args[0]} exited ${res.code}: ${res.stderr}`);
    return res.lines;
  };
  const backups = async () =>
    (await request(server.url).get(`/api/services/${serviceId}/instance/backups`).set('Authorization', `Bearer ${apiKey}`).expect(200)).body
      .data as { id: string; status: string; trigger: string }[];

  beforeAll(async () => {
    dataDir = freshDataDir('backup-run-');
    await ok(['account:create', '--email', email, '--password', 'a long enough pw', '--name', 'Ops', '--email-verified']);
    [{ key: apiKey }] = await ok(['api-key:create', '--email', email, '--name', 'ops', '--scopes', 'read']);
    [{ key: writeKey }] = await ok(['api-key:create', '--email', email, '--name', 'customer', '--scopes', 'read,write']);
    [{ id: serviceId }] = await ok(['service:provision', '--email', email, '--type', 'vps']);
    server = await startServerProcess(env(), { startTimeoutMs: 90_000 });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes the backup now and prints it: listed available, its object in the backup store', async () => {
    const res = await runCli(['backup:run', '--service', serviceId], env());
    expect(res.code).toBe(0);
    expect(res.lines).toEqual([{ serviceId, backupId: expect.any(String), status: 'available' }]);
    if (!TEST_DATABASE_URL) expect(res.stderr).toContain(`backup:run runs in the API server (process ${server.child.pid})`);
    const { backupId } = res.lines[0];
    expect(await backups()).toContainEqual(expect.objectContaining({ id: backupId, status: 'available', trigger: 'operator' }));
    expect(statSync(join(dataDir, 'backups', 'vps', serviceId, `${backupId}.qcow2`)).size).toBe(256 * 1024);
  });

  it('--no-wait queues it, and the server makes it at once', async () => {
    const before = (await backups()).length;
    const res = await runCli(['backup:run', '--service', serviceId, '--no-wait'], env());
    expect(res.code).toBe(0);
    expect(res.lines).toEqual([{ serviceId, queued: true }]);
    const after = await waitFor(backups, (all) => all.length > before && all.every((b) => b.status !== 'running'), 30_000);
    expect(after[0]).toMatchObject({ status: 'available', trigger: 'operator' });
  });

  it('says why nothing was backed up (65)', async () => {
    const res = await runCli(['backup:run', '--service', randomUUID()], env());
    expect(res.code).toBe(65);
    expect(res.stderr).toContain('invalid_state: No backup was made: not a VPS.');
    expect(res.lines).toEqual([]);
  });

  (TEST_DATABASE_URL ? it.skip : it)(
    'still refuses the commands that need the data directory itself (75), naming the ones that run through the server',
    async () => {
      const res = await runCli(['api-key:create', '--email', email, '--name', 'second'], env());
      expect(res.code).toBe(75);
      expect(res.stderr).toContain(`is in use by process ${server.child.pid}`);
      expect(res.stderr).toContain('While it runs, these commands go through it: backup:run, service:actions.');
      expect(res.lines).toEqual([]);
    },
  );

  it("service:actions shows the VPS's latest action, the one a customer just began", async () => {
    const reboot = await request(server.url)
      .post(`/api/services/${serviceId}/instance/reboot`)
      .set('Authorization', `Bearer ${writeKey}`)
      .expect(202);
    const res = await runCli(['service:actions', '--id', serviceId, '--limit', '1'], env());
    expect(res.code).toBe(0);
    if (!TEST_DATABASE_URL) expect(res.stderr).toContain(`service:actions runs in the API server (process ${server.child.pid})`);
    expect(res.lines).toEqual([expect.objectContaining({ id: reboot.body.id, type: 'reboot' })]);
  });

  (TEST_DATABASE_URL ? it.skip : it)("the server's operator socket is its owner's alone: 0600, in a folder of mode 0700", () => {
    const folder = join(dataDir, 'operator');
    expect((statSync(folder).mode & 0o777).toString(8)).toBe('700');
    const socket = statSync(join(folder, 'operator.sock'));
    expect({ socket: socket.isSocket(), mode: (socket.mode & 0o777).toString(8) }).toEqual({ socket: true, mode: '600' });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage, sshKeyPair } from '../factories/images';
import { createService } from '../factories/services';
import { createTicket } from '../factories/support';
import { HostctlRun, runHostctl } from '../support/hostctl';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Names everywhere in hostctl (issue 58, points 2 and 3) as a customer types them, against the
 * whole API on the simulator: tickets by reference, SSH keys, API keys and snapshots by name, the
 * `get` verb with the old `show` kept, `vps rebuild`, `images list|get|delete` and the SSH column of
 * the services table. Steps share one account and run in order.
 */
describe('hostctl: names, references and slugs wherever an id is taken', () => {
  let t: TestApp;
  let home: string;
  let url: string;
  let account: TestAccount;
  let web: string;
  let system: { id: string; slug: string };

  const hostctl = (args: string[], input?: string): Promise<HostctlRun> =>
    runHostctl(args, { home, input, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: account.apiKey } });

  const post = (path: string) => request(t.http).post(path).set('Authorization', account.bearer);
  const del = (path: string) => request(t.http).delete(path).set('Authorization', account.bearer);

  async function ok(args: string[], input?: string): Promise<HostctlRun> {
    const run = await hostctl(args, input);
    if (run.code !== 0) throw new Error(`hostctl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run;
  }

  beforeAll(async () => {
    t = await startTestApp({ COMPUTE_TRANSITION_DELAY_MS: '100' });
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    home = mkdtempSync(join(tmpdir(), 'hostctl-names-'));
    account = await createAccount(t);
    web = (await createService(t, account.id, { type: 'vps', name: 'web-01' })).id;
    system = await createImage(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('gets, replies to and closes a ticket by its reference; `tickets show` is kept as an alias of `get`', async () => {
    const ticket = await createTicket(t, account, { subject: 'web-01 is slow' });
    expect(ticket.reference).toMatch(/^T-\d{6}$/);
    const got = (await ok(['tickets', 'get', ticket.reference, '-o', 'json'])).json;
    expect(got).toMatchObject({ id: ticket.id, subject: 'web-01 is slow' });
    expect((await ok(['tickets', 'show', ticket.reference.toLowerCase(), '-o', 'json'])).json.id).toBe(ticket.id);
    expect((await ok(['tickets', 'show', ticket.id])).stdout).toMatch(new RegExp(`^Reference:\\s+${ticket.reference}$`, 'm'));
    expect((await ok(['tickets', 'reply', ticket.reference, '--message', 'Still slow.'])).stdout).toBe(
      `Reply ${(await t.get(`/api/support/tickets/${ticket.id}`, account.bearer).expect(200)).body.messages[1].id} added to ticket ${ticket.id}\n`,
    );
    expect((await ok(['tickets', 'close', ticket.reference, '-o', 'json'])).json).toMatchObject({ id: ticket.id, status: 'closed' });
    expect(await hostctl(['tickets', 'get', 'T-999999'])).toMatchObject({
      code: 1,
      stderr: 'Error: no ticket named "T-999999" in this account ("hostctl tickets list" shows names and ids)\n',
    });
  });

  it('deletes an SSH key by its name; a name on two keys is a usage error listing them, an unknown name exit 1', async () => {
    const add = (name: string) => post('/api/ssh-keys').send({ name, publicKey: sshKeyPair().publicKey }).expect(201);
    const ci = (await add('ci runner')).body;
    const twinA = (await add('twin')).body;
    const twinB = (await add('twin')).body;
    expect((await ok(['ssh-keys', 'get', 'ci runner', '-o', 'json'])).json).toMatchObject({ id: ci.id, name: 'ci runner' });
    expect((await ok(['ssh-keys', 'get', ci.fingerprint])).stdout).toMatch(new RegExp(`^ID:\\s+${ci.id}$`, 'm'));
    expect((await ok(['ssh-keys', 'delete', 'ci runner'])).stdout).toBe(`SSH key ${ci.id} deleted\n`);
    await t.get(`/api/ssh-keys/${ci.id}`, account.bearer).expect(404);

    const twins = await hostctl(['ssh-keys', 'delete', 'twin']);
    expect(twins.code).toBe(2);
    expect(twins.stderr).toContain('2 SSH keys are named "twin": ');
    expect(twins.stderr).toContain(`${twinA.id} (${twinA.fingerprint})`);
    expect(twins.stderr).toContain(`${twinB.id} (${twinB.fingerprint})`);
    expect(twins.stderr).toContain('give the id instead');
    expect((await ok(['ssh-keys', 'delete', twinB.fingerprint])).stdout).toBe(`SSH key ${twinB.id} deleted\n`);
    expect((await ok(['ssh-keys', 'delete', 'twin'])).stdout).toBe(`SSH key ${twinA.id} deleted\n`);
    expect(await hostctl(['ssh-keys', 'delete', 'twin'])).toMatchObject({
      code: 1,
      stderr: 'Error: no SSH key named "twin" in this account ("hostctl ssh-keys list" shows names and ids)\n',
    });
  });

  it('revokes an API key by its name', async () => {
    const made = (await post('/api/auth/api-keys').send({ name: 'deploy bot' }).expect(201)).body;
    expect((await ok(['auth', 'token', 'revoke', 'deploy bot'])).stdout).toBe(`API key ${made.id} revoked\n`);
    const keys = (await t.get('/api/auth/api-keys', account.bearer).expect(200)).body.data as { id: string }[];
    expect(keys.map((k) => k.id)).not.toContain(made.id);
  });

  it('lists and gets images by slug or name (`images show` as an alias), and deletes a snapshot by its name', async () => {
    const listed = (await ok(['images', 'list', '-o', 'json'])).json as { id: string; type: string }[];
    expect(listed.map((i) => i.id)).toContain(system.id);
    expect((await ok(['images', 'list'])).stdout).toMatch(new RegExp(`^${system.id}\\s+${system.slug}\\s+Test ${system.slug}\\s`, 'm'));
    expect((await ok(['images', 'get', system.slug, '-o', 'json'])).json).toMatchObject({
      id: system.id,
      slug: system.slug,
      type: 'system',
    });
    expect((await ok(['images', 'show', system.slug])).stdout).toMatch(new RegExp(`^Slug:\\s+${system.slug}$`, 'm'));

    const made = (await ok(['vps', 'snapshot', 'create', 'web-01', '--name', 'before-upgrade', '--wait', '-o', 'json'])).json;
    const imageId = made.snapshot.imageId as string;
    expect((await ok(['images', 'list', '--type', 'snapshot', '-o', 'json'])).json.map((i: { id: string }) => i.id)).toEqual([imageId]);
    expect((await ok(['images', 'get', 'before-upgrade', '-o', 'json'])).json).toMatchObject({ id: imageId, type: 'snapshot' });
    expect((await ok(['vps', 'snapshot', 'delete', 'before-upgrade'])).stdout).toBe(`Snapshot ${imageId} deleted\n`);
    expect(await hostctl(['vps', 'snapshot', 'delete', 'before-upgrade'])).toMatchObject({
      code: 1,
      stderr: 'Error: no image named "before-upgrade" in this account ("hostctl images list" shows names and ids)\n',
    });

    const again = (await ok(['vps', 'snapshot', 'create', 'web-01', '--name', 'nightly', '--wait', '-o', 'json'])).json;
    expect((await ok(['images', 'delete', 'nightly'])).stdout).toBe(`Image ${again.snapshot.imageId} deleted\n`);
    // A system image is not the account's to delete: its name is not looked for among snapshots.
    expect((await hostctl(['images', 'delete', system.slug])).code).toBe(1);
  });

  it('rebuilds a VPS by name from an image slug, with an SSH key by name, and waits for it', async () => {
    const key = (await post('/api/ssh-keys').send({ name: 'laptop', publicKey: sshKeyPair().publicKey }).expect(201)).body;
    const rebuilt = (
      await ok([
        'vps',
        'rebuild',
        'web-01',
        '--image',
        system.slug,
        '--ssh-key',
        'laptop',
        '--ssh-key',
        key.fingerprint,
        '--wait',
        '-o',
        'json',
      ])
    ).json;
    expect(rebuilt).toMatchObject({ type: 'rebuild', serviceId: web, status: 'succeeded' });
    const shown = (await ok(['vps', 'rebuild', 'web-01', '--image', system.slug])).stdout;
    expect(shown).toMatch(/^rebuild: (running \(\d+%[^)]*\)|succeeded) \(action [0-9a-f-]{36}\)$/m);
    const actions = (await t.get(`/api/services/${web}/instance/actions`, account.bearer).expect(200)).body.data as { type: string }[];
    expect(actions.filter((a) => a.type === 'rebuild').length).toBeGreaterThanOrEqual(2);
    expect(await hostctl(['vps', 'rebuild', 'web-01', '--image', 'no-such-image'])).toMatchObject({
      code: 1,
      stderr: 'Error: no image named "no-such-image" in this account ("hostctl images list" shows names and ids)\n',
    });
    expect((await hostctl(['vps', 'rebuild', 'web-01'])).code).toBe(2);
    await del(`/api/ssh-keys/${key.id}`).expect(204);
  });

  it("shows a VPS's SSH endpoint in the services table, host:port for a VPS in user networking", async () => {
    const user = await createService(t, account.id, { type: 'vps', name: 'user-net' });
    // As a user-mode VPS is: no address of its own, its SSH port forwarded on the host's.
    await t.db.query(`UPDATE vps_instances SET ipv4 = NULL, ipv6 = NULL, ssh_host = '127.0.0.1', ssh_port = 22011 WHERE service_id = $1`, [
      user.id,
    ]);
    const table = (await ok(['services', 'list'])).stdout;
    expect(table.split('\n')[0]).toMatch(/^ID\s+NAME\s+TYPE\s+STATUS\s+POWER\s+IPV4\s+SSH\s+PRICE$/);
    expect(table).toMatch(new RegExp(`^${user.id}\\s+user-net\\s+vps\\s+\\S+\\s+\\S+\\s+-\\s+127\\.0\\.0\\.1:22011\\s`, 'm'));
  });
});

import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { HostctlRun, runHostctl } from '../support/hostctl';
import { linkToken, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

/** A table line as hostctl prints it: each cell padded to its column's width, three spaces apart, the last as it is. */
const row = (widths: number[], ...cells: string[]) =>
  cells
    .map((cell, i) => (i < cells.length - 1 ? cell.padEnd(widths[i]) : cell))
    .join('   ')
    .trimEnd();
const table = (widths: number[], ...rows: string[][]) => rows.map((cells) => row(widths, ...cells)).join('\n') + '\n';

/**
 * Teams in hostctl (issue 56, point 6): an owner (API key) invites a second login by mail; that
 * login, with a session of hostctl, registers, accepts with the mailed token, switches its session
 * to the account and back, is given another role, removed, invited again and leaves. Each customer
 * has their own HOME; steps run in order.
 */
describe('hostctl: members, invitations and accounts', () => {
  let t: TestApp;
  const smtp = new TestSmtpServer();
  let url: string;
  let owner: TestAccount;
  let ownerMemberId: string;
  let ownerVps: string;
  let ownerHome: string;
  let graceHome: string;
  let readerKey: { key: string; scopes: string[] };
  const grace = {
    id: '',
    memberId: '',
    vps: '',
    email: `grace-${randomUUID().slice(0, 8)}@example.test`,
    password: 'another long passphrase',
  };

  const asOwner = (args: string[]) => runHostctl(args, { home: ownerHome, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: owner.apiKey } });
  const asGrace = (args: string[], input?: string) => runHostctl(args, { home: graceHome, input, env: { HOSTCTL_URL: url } });
  const graceConfig = () => join(graceHome, 'config', 'hostctl', 'config.json');

  async function ok(as: typeof asOwner, args: string[]): Promise<HostctlRun> {
    const run = await as(args);
    if (run.code !== 0) throw new Error(`hostctl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run;
  }

  /** The token of the nth invitation mailed to an address, from its link. */
  async function invitationToken(email: string, nth: number): Promise<string> {
    const invited = await waitForOrFail(
      async () => smtp.mailsTo(email).filter((m) => /You are invited to the hosting account Test User/.test(m.subject)),
      (mails) => mails.length >= nth,
      15_000,
      (mails) => `${mails.length} invitations mailed to ${email}, not ${nth}`,
    );
    const token = linkToken(invited[nth - 1], '/accept-invitation');
    expect(invited[nth - 1].body).toContain(`From a terminal: hostctl invitations accept ${token}`);
    return token;
  }

  const members = async () => (await t.get('/api/account/members', owner.bearer).expect(200)).body.data;

  beforeAll(async () => {
    await smtp.start();
    t = await startTestApp({ SMTP_URL: smtp.url });
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    ownerHome = mkdtempSync(join(tmpdir(), 'hostctl-owner-'));
    graceHome = mkdtempSync(join(tmpdir(), 'hostctl-grace-'));
    owner = await createAccount(t);
    ownerMemberId = (await members())[0].id;
    ownerVps = (await createService(t, owner.id, { type: 'vps', name: 'owner-web' })).id;

    const registered = await request(t.http)
      .post('/api/auth/register')
      .send({ email: grace.email, password: grace.password, name: 'Grace Hopper' })
      .expect(201);
    grace.id = registered.body.account.id;
    const confirm = linkToken(await smtp.waitForMail(grace.email, /Confirm your email address/), '/confirm-email');
    await request(t.http).post('/api/auth/email/verify').send({ token: confirm }).expect(204);
    grace.vps = (await createService(t, grace.id, { type: 'vps', name: 'grace-web' })).id;
    const login = await asGrace(['auth', 'login', '--url', url, '--email', grace.email, '--password-stdin'], grace.password);
    if (login.code !== 0) throw new Error(`hostctl auth login exited ${login.code}: ${login.stderr}`);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
    rmSync(ownerHome, { recursive: true, force: true });
    rmSync(graceHome, { recursive: true, force: true });
  });

  it('invites an address by mail (as given, in lower case) and lists the pending invitation with who sent it', async () => {
    const created = await ok(asOwner, ['invitations', 'create', grace.email.toUpperCase()]);
    const [invitation] = (await t.get('/api/account/invitations', owner.bearer).expect(200)).body.data;
    expect(invitation).toMatchObject({ email: grace.email, role: 'member', invitedBy: ownerMemberId });
    expect(created.stdout).toBe(
      `ID:          ${invitation.id}\n` +
        `Email:       ${grace.email}\n` +
        `Role:        member\n` +
        `Invited by:  ${owner.email}\n` +
        `Created:     ${invitation.createdAt}\n` +
        `Expires:     ${invitation.expiresAt}\n` +
        `\nA link to accept it was mailed to ${grace.email}; it works once, until ${invitation.expiresAt}.\n`,
    );
    expect((await ok(asOwner, ['invitations', 'list'])).stdout).toBe(
      table(
        [36, grace.email.length, 6, owner.email.length, 24],
        ['ID', 'EMAIL', 'ROLE', 'INVITED BY', 'CREATED', 'EXPIRES'],
        [invitation.id, grace.email, 'member', owner.email, invitation.createdAt, invitation.expiresAt],
      ),
    );
    expect(await asOwner(['invitations', 'create', grace.email])).toMatchObject({ code: 1, stdout: '' });
    expect((await asOwner(['invitations', 'create', 'ops@example.test', '--role', 'boss'])).code).toBe(2);
  });

  it('accepts the invitation with the token of the mail, from a session only, once', async () => {
    const token = await invitationToken(grace.email, 1);
    const byKey = await asOwner(['invitations', 'accept', token]);
    expect(byKey).toMatchObject({ code: 1, stdout: '' });
    expect(byKey.stderr).toContain('Error: Accepting an invitation needs an access token from a login, not an API key.\n');
    expect((await asGrace(['invitations', 'accept', 'hinv_not-a-token'])).stderr).toContain('  code: invalid_token\n');

    const accepted = await ok(asGrace, ['invitations', 'accept', token]);
    grace.memberId = (await members()).find((m: { email: string }) => m.email === grace.email).id;
    expect(accepted.stdout).toBe(
      `Account:    ${owner.id}\n` +
        `Name:       Test User\n` +
        `Role:       member\n` +
        `Member ID:  ${grace.memberId}\n` +
        `\nAct on it with: hostctl accounts switch ${owner.id}\n`,
    );
    const again = await asGrace(['invitations', 'accept', token]);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toContain('  code: invalid_token\n');
  });

  it("lists the login's accounts and switches its session to the invited one: services, whoami and a refresh follow", async () => {
    const widths = [7, 36, 12];
    expect((await ok(asGrace, ['accounts', 'list'])).stdout).toBe(
      table(widths, ['CURRENT', 'ID', 'NAME', 'ROLE'], ['*', grace.id, 'Grace Hopper', 'owner'], ['-', owner.id, 'Test User', 'member']),
    );
    expect((await ok(asGrace, ['services', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([grace.vps]);
    const before = JSON.parse(readFileSync(graceConfig(), 'utf8')).contexts.default;

    expect((await ok(asGrace, ['accounts', 'switch', 'Test User'])).stdout).toBe(`Switched to account Test User (${owner.id}) as member\n`);
    const after = JSON.parse(readFileSync(graceConfig(), 'utf8'));
    expect(after.contexts.default).toEqual({
      url,
      email: grace.email,
      accessToken: expect.any(String),
      accessTokenExpiresAt: expect.any(String),
      refreshToken: expect.any(String),
    });
    expect(after.contexts.default.refreshToken).not.toBe(before.refreshToken);
    expect(after.contexts.default.accessToken).not.toBe(before.accessToken);

    expect((await ok(asGrace, ['services', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([ownerVps]);
    expect((await ok(asGrace, ['services', 'list', '--no-header'])).stdout).toMatch(new RegExp(`^${ownerVps}\\s+owner-web\\s+vps\\s`));
    expect((await ok(asGrace, ['accounts', 'list'])).stdout).toBe(
      table(widths, ['CURRENT', 'ID', 'NAME', 'ROLE'], ['-', grace.id, 'Grace Hopper', 'owner'], ['*', owner.id, 'Test User', 'member']),
    );
    const me = (await t.get('/api/auth/me', `Bearer ${after.contexts.default.accessToken}`).expect(200)).body;
    expect((await ok(asGrace, ['auth', 'whoami'])).stdout).toBe(
      `ID:       ${grace.id}\n` +
        `Email:    ${grace.email}\n` +
        `Name:     Grace Hopper\n` +
        `Created:  ${me.createdAt}\n` +
        `Account:  Test User (${owner.id})\n` +
        `Role:     member\n`,
    );

    // The refresh token kept is the switched session's: a refresh acts on the same account.
    after.contexts.default.accessTokenExpiresAt = new Date(Date.now() - 1000).toISOString();
    writeFileSync(graceConfig(), JSON.stringify(after));
    expect((await ok(asGrace, ['services', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([ownerVps]);

    expect(await asGrace(['accounts', 'switch', 'Initech'])).toMatchObject({
      code: 1,
      stderr: 'Error: no account named "Initech" among yours ("hostctl accounts list" shows names and ids)\n',
    });
  });

  it('refuses to switch an API key, which belongs to one account, before asking the API', async () => {
    const keyHint =
      'holds an API key, and an API key belongs to one account: to act on another, log in with email and password ' +
      '("hostctl auth login" without --api-key) and switch, or use a key made on that account\n';
    expect(await asOwner(['accounts', 'switch', 'Test User'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `Error: HOSTCTL_TOKEN ${keyHint}`,
      json: undefined,
    });
    await runHostctl(['context', 'create', 'keyed', '--url', url, '--token-stdin'], { home: ownerHome, input: owner.apiKey });
    const fromContext = await runHostctl(['accounts', 'switch', 'Test User'], { home: ownerHome, env: {} });
    expect(fromContext).toMatchObject({ code: 2, stderr: `Error: context "keyed" ${keyHint}` });
  });

  it('lists, gets and changes the role of members by email; a member may not, and a read_only member may not write', async () => {
    const [ownerRow, graceRow] = await members();
    const widths = [36, owner.email.length, 12, 6];
    const header = ['ID', 'EMAIL', 'NAME', 'ROLE', 'JOINED'];
    const listed = table(
      widths,
      header,
      [ownerMemberId, owner.email, 'Test User', 'owner', ownerRow.joinedAt],
      [grace.memberId, grace.email, 'Grace Hopper', 'member', graceRow.joinedAt],
    );
    expect((await ok(asOwner, ['members', 'list'])).stdout).toBe(listed);
    expect((await ok(asGrace, ['members', 'list'])).stdout).toBe(listed);

    const byMember = await asGrace(['members', 'set-role', owner.email, 'read_only']);
    expect(byMember).toMatchObject({ code: 1, stdout: '' });
    expect(byMember.stderr).toContain('  code: insufficient_role\n');

    const shown = (role: string) =>
      `ID:      ${grace.memberId}\nEmail:   ${grace.email}\nName:    Grace Hopper\nRole:    ${role}\nJoined:  ${graceRow.joinedAt}\n`;
    expect((await ok(asOwner, ['members', 'get', grace.email.toUpperCase()])).stdout).toBe(shown('member'));
    expect((await ok(asOwner, ['members', 'get', grace.memberId, '-o', 'json'])).json).toEqual(graceRow);
    expect((await ok(asOwner, ['members', 'set-role', grace.email, 'read_only'])).stdout).toBe(shown('read_only'));
    expect((await members())[1].role).toBe('read_only');
    // A key made now is the account's, and of what the role allows when no scopes are asked for.
    readerKey = (await ok(asGrace, ['auth', 'token', 'create', '--name', 'reader', '-o', 'json'])).json;
    expect(readerKey.scopes).toEqual(['read']);
    const keyed = (args: string[]) => runHostctl(args, { home: graceHome, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: readerKey.key } });
    expect((await ok(keyed, ['services', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([ownerVps]);

    const stop = await asGrace(['vps', 'stop', 'owner-web']);
    expect(stop).toMatchObject({ code: 1, stdout: '' });
    expect(stop.stderr).toContain('  code: insufficient_role\n');
    expect((await ok(asGrace, ['services', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([ownerVps]);

    expect(await asOwner(['members', 'get', 'nobody@example.test'])).toMatchObject({
      code: 1,
      stderr: 'Error: no member named "nobody@example.test" in this account ("hostctl members list" shows names and ids)\n',
    });
    expect((await asOwner(['members', 'set-role', grace.email, 'boss'])).code).toBe(2);
  });

  it('deletes a pending invitation by its address; a read_only member may not invite', async () => {
    const ops = `ops-${randomUUID().slice(0, 8)}@example.test`;
    const created = (await ok(asOwner, ['invitations', 'create', ops, '--role', 'read_only', '-o', 'json'])).json;
    expect(created).toMatchObject({ email: ops, role: 'read_only', invitedBy: ownerMemberId });
    expect((await ok(asOwner, ['invitations', 'list', '-o', 'json'])).json).toEqual([created]);
    expect((await ok(asOwner, ['invitations', 'delete', ops])).stdout).toBe(`Invitation ${created.id} deleted\n`);
    expect((await ok(asOwner, ['invitations', 'list', '-o', 'json'])).json).toEqual([]);

    const byReader = await asGrace(['invitations', 'create', ops]);
    expect(byReader).toMatchObject({ code: 1, stdout: '' });
    expect(byReader.stderr).toContain('  code: insufficient_role\n');
  });

  it('removes a member: their key stops working, their session no longer acts on the account and switches back to its own', async () => {
    expect((await ok(asOwner, ['members', 'remove', grace.email])).stdout).toBe(`Member ${grace.email} removed\n`);
    expect((await ok(asOwner, ['members', 'list', '-o', 'json'])).json.map((m: { email: string }) => m.email)).toEqual([owner.email]);

    const revoked = await runHostctl(['services', 'list'], { home: graceHome, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: readerKey.key } });
    expect(revoked).toMatchObject({ code: 1, stdout: '' });
    expect(revoked.stderr).toContain('  code: unauthorized\n');

    const refused = await asGrace(['services', 'list']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('  code: no_account\n');
    expect((await ok(asGrace, ['accounts', 'list'])).stdout).toBe(
      table([7, 36, 12], ['CURRENT', 'ID', 'NAME', 'ROLE'], ['-', grace.id, 'Grace Hopper', 'owner']),
    );
    expect((await ok(asGrace, ['accounts', 'switch', 'Grace Hopper'])).stdout).toBe(
      `Switched to account Grace Hopper (${grace.id}) as owner\n`,
    );
    expect((await ok(asGrace, ['services', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([grace.vps]);
  });

  it('leaves an account joined again: the session then acts on the login own account; the last owner cannot leave', async () => {
    await ok(asOwner, ['invitations', 'create', grace.email, '--role', 'admin']);
    await ok(asGrace, ['invitations', 'accept', await invitationToken(grace.email, 2)]);
    expect((await ok(asGrace, ['accounts', 'switch', owner.id])).stdout).toBe(`Switched to account Test User (${owner.id}) as admin\n`);

    expect((await ok(asGrace, ['members', 'leave'])).stdout).toBe(`Left account Test User (${owner.id})\n`);
    expect((await ok(asGrace, ['services', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([grace.vps]);
    expect((await ok(asGrace, ['accounts', 'list', '-o', 'json'])).json).toEqual([
      { accountId: grace.id, name: 'Grace Hopper', role: 'owner', current: true },
    ]);
    expect((await members()).map((m: { email: string }) => m.email)).toEqual([owner.email]);

    const lastOwner = await asOwner(['members', 'leave']);
    expect(lastOwner).toMatchObject({ code: 1, stdout: '' });
    expect(lastOwner.stderr).toContain('  code: last_owner\n');
  });
});

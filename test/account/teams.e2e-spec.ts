import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { linkToken, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

const PASSWORD = 'correct horse battery staple';

interface Login {
  email: string;
  bearer: string;
  refreshToken: string;
}

/**
 * A company's account used by several people: an owner invites a developer (member) and a
 * contractor (read_only) through a real SMTP server, both register, confirm their address and
 * accept; what each may do, who did what, leaving, removal and the last owner.
 */
describe('Teams: members, roles and invitations', () => {
  let t: TestApp;
  const smtp = new TestSmtpServer();
  const receiver = new WebhookReceiver();
  let owner: TestAccount;
  let vpsId: string;
  let storageId: string;
  let developer: Login;
  let contractor: Login;
  let developerMemberId: string;
  let contractorMemberId: string;

  beforeAll(async () => {
    await smtp.start();
    await receiver.start();
    t = await startTestApp({ SMTP_URL: smtp.url, WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' });
    owner = await createAccount(t);
    await t.db.query(`UPDATE accounts SET name = 'Acme Ltd' WHERE id = $1`, [owner.id]);
    vpsId = (await createService(t, owner.id, { powerState: 'running' })).id;
    storageId = (await createService(t, owner.id, { type: 'object_storage' })).id;
    await api()
      .post('/api/webhooks')
      .set('Authorization', owner.bearer)
      .send({ url: receiver.url, events: ['*'] })
      .expect(201);
  });
  afterAll(async () => {
    await t?.close();
    await smtp.stop();
    await receiver.stop();
  });

  const api = () => request(t.http);
  const invite = (email: string, role: string, bearer = owner.bearer) =>
    api().post('/api/account/invitations').set('Authorization', bearer).send({ email, role });

  /** Registers the address, confirms it through the mailed link, and signs in. */
  async function register(email: string): Promise<Login> {
    const registered = await api()
      .post('/api/auth/register')
      .send({ email, password: PASSWORD, name: email.split('@')[0] })
      .expect(201);
    const token = linkToken(await smtp.waitForMail(email, /Confirm your email address/), '/confirm-email');
    await api().post('/api/auth/email/verify').send({ token }).expect(204);
    return { email, bearer: `Bearer ${registered.body.accessToken}`, refreshToken: registered.body.refreshToken };
  }

  /** New tokens of the login's session acting on the account. */
  async function switchTo(login: Login, accountId: string): Promise<Login> {
    const res = await api().post('/api/auth/switch-account').set('Authorization', login.bearer).send({ accountId }).expect(200);
    expect(res.body.accountId).toBe(accountId);
    return { email: login.email, bearer: `Bearer ${res.body.accessToken}`, refreshToken: res.body.refreshToken };
  }

  it('invites a developer and a contractor by mail; each registers, confirms and accepts with the link', async () => {
    const developerEmail = `dev-${randomUUID()}@example.test`;
    const contractorEmail = `contractor-${randomUUID()}@example.test`;
    const sent = await invite(developerEmail.toUpperCase(), 'member').expect(201);
    expect(sent.body).toEqual({
      id: expect.any(String),
      email: developerEmail,
      role: 'member',
      invitedBy: expect.any(String),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(sent.body.expiresAt) - Date.parse(sent.body.createdAt)).toBe(72 * 3600_000);
    await invite(contractorEmail, 'read_only').expect(201);
    expect((await invite(developerEmail, 'admin').expect(409)).body.code).toBe('already_member');
    const pending = await api().get('/api/account/invitations').set('Authorization', owner.bearer).expect(200);
    expect(pending.body.data.map((i: { email: string }) => i.email).sort()).toEqual([contractorEmail, developerEmail].sort());

    const mail = await smtp.waitForMail(developerEmail, /invited to the hosting account Acme Ltd/);
    expect(mail.body).toContain(`${t.config.publicUrl}/account/accept-invitation?token=`);
    expect(mail.body).toContain('as a member');
    const developerToken = linkToken(mail, '/accept-invitation');
    const contractorToken = linkToken(await smtp.waitForMail(contractorEmail, /invited/), '/accept-invitation');
    // The link's page says who may accept and how, and accepts nothing.
    const page = await api()
      .get(`/account/accept-invitation?token=${encodeURIComponent(developerToken)}`)
      .expect(200);
    expect(page.text).toContain('Acme Ltd');
    expect(page.text).toContain(developerEmail);
    expect(page.text).toContain(`hostctl invitations accept ${developerToken}`);
    await api().get('/account/accept-invitation?token=hinv_nothing').expect(400);

    // Not yet confirmed: the address must be the login's own, proven.
    const unconfirmed = await api().post('/api/auth/register').send({ email: developerEmail, password: PASSWORD, name: 'Dev' }).expect(201);
    const early = await api()
      .post('/api/auth/invitations/accept')
      .set('Authorization', `Bearer ${unconfirmed.body.accessToken}`)
      .send({ token: developerToken })
      .expect(403);
    expect(early.body.code).toBe('email_unverified');
    const confirm = linkToken(await smtp.waitForMail(developerEmail, /Confirm your email address/), '/confirm-email');
    await api().post('/api/auth/email/verify').send({ token: confirm }).expect(204);
    developer = { email: developerEmail, bearer: `Bearer ${unconfirmed.body.accessToken}`, refreshToken: unconfirmed.body.refreshToken };
    const joined = await api().post('/api/auth/invitations/accept').set('Authorization', developer.bearer).send({ token: developerToken });
    expect(joined.status).toBe(200);
    expect(joined.body).toEqual({ accountId: owner.id, name: 'Acme Ltd', role: 'member', memberId: expect.any(String) });
    developerMemberId = joined.body.memberId;

    // A link forwarded to another login does not work, and a used one never again.
    const stranger = await createAccount(t);
    const forwarded = await api()
      .post('/api/auth/invitations/accept')
      .set('Authorization', stranger.bearer)
      .send({ token: contractorToken });
    expect([forwarded.status, forwarded.body.code]).toEqual([403, 'invitation_for_another_address']);
    const again = await api().post('/api/auth/invitations/accept').set('Authorization', stranger.bearer).send({ token: developerToken });
    expect([again.status, again.body.code]).toEqual([400, 'invalid_token']);
    const byKey = await api()
      .post('/api/auth/invitations/accept')
      .set('Authorization', stranger.keyBearer)
      .send({ token: contractorToken });
    expect([byKey.status, byKey.body.code]).toEqual([403, 'forbidden']);

    contractor = await register(contractorEmail);
    const accepted = await api()
      .post('/api/auth/invitations/accept')
      .set('Authorization', contractor.bearer)
      .send({ token: contractorToken });
    expect(accepted.body).toMatchObject({ accountId: owner.id, role: 'read_only' });
    contractorMemberId = accepted.body.memberId;

    const members = await api().get('/api/account/members').set('Authorization', owner.keyBearer).expect(200);
    expect(members.body.data.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [developerEmail, 'member'],
      [contractorEmail, 'read_only'],
    ]);
    expect((await api().get('/api/account/invitations').set('Authorization', owner.bearer).expect(200)).body.total).toBe(0);
    const joinedMail = await waitFor(
      async () => smtp.mailsTo(owner.email).some((m) => m.body.includes(`${contractorEmail} joined the account as a read-only member`)),
      (found) => found,
      15_000,
    );
    expect(joinedMail).toBe(true);

    const me = await api().get('/api/auth/me').set('Authorization', contractor.bearer).expect(200);
    expect(me.body.accounts).toEqual([
      { accountId: me.body.id, name: expect.any(String), role: 'owner' },
      { accountId: owner.id, name: 'Acme Ltd', role: 'read_only' },
    ]);
    expect(me.body.currentAccountId).toBe(me.body.id);
  });

  it('the developer reboots a VPS on the company account; the activity log and the webhook name them', async () => {
    developer = await switchTo(developer, owner.id);
    const reboot = await api().post(`/api/services/${vpsId}/instance/reboot`).set('Authorization', developer.bearer).send({});
    expect(reboot.status).toBe(202);
    const events = await api().get(`/api/events?actor=${developerMemberId}`).set('Authorization', owner.bearer).expect(200);
    const entry = events.body.data.find((e: { action: string }) => e.action === 'instance.reboot');
    expect(entry.actor).toMatchObject({ type: 'account', memberId: developerMemberId, email: developer.email, keyId: null });
    expect(events.body.data.every((e: { actor: { memberId: string } }) => e.actor.memberId === developerMemberId)).toBe(true);
    const delivered = await waitFor(
      async () => receiver.of('instance.reboot'),
      (hooks) => hooks.length > 0,
      20_000,
    );
    expect(delivered[0]?.json.data.actor).toMatchObject({ memberId: developerMemberId, email: developer.email });
    const bad = await api().get('/api/events?actor=someone').set('Authorization', owner.bearer);
    expect(bad.status).toBe(400);
    const ticket = await api()
      .post('/api/support/tickets')
      .set('Authorization', developer.bearer)
      .send({ subject: 'Reboot loop', message: 'web-1 reboots by itself' })
      .expect(200);
    expect(ticket.body.messages[0].author).toEqual({
      type: 'customer',
      name: 'Dev',
      memberId: developerMemberId,
      email: developer.email,
      keyId: null,
    });
  });

  it('the read-only contractor reads but writes nothing and sees no secrets', async () => {
    contractor = await switchTo(contractor, owner.id);
    const as = (method: 'get' | 'post', path: string, body: object = {}) =>
      (method === 'get' ? api().get(path) : api().post(path).send(body)).set('Authorization', contractor.bearer);
    for (const path of ['/api/services', `/api/services/${vpsId}`, '/api/events', '/api/webhooks', '/api/account/members']) {
      expect([path, (await as('get', path)).status]).toEqual([path, 200]);
    }
    const refused: [method: 'get' | 'post', path: string, body?: object][] = [
      ['post', `/api/services/${vpsId}/instance/reboot`],
      ['get', `/api/services/${vpsId}/instance/console`],
      ['post', `/api/services/${vpsId}/instance/rescue`],
      ['get', `/api/services/${storageId}/object-storage/credentials`],
      ['post', '/api/webhooks', { url: receiver.url }],
      ['post', '/api/account/invitations', { email: 'x@example.test', role: 'read_only' }],
      ['post', '/api/ssh-keys', { name: 'k', publicKey: 'ssh-ed25519 AAAA' }],
    ];
    for (const [method, path, body] of refused) {
      const res = await as(method, path, body);
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'insufficient_role']);
    }
    const writeKey = await as('post', '/api/auth/api-keys', { name: 'ci', scopes: ['read', 'write'] });
    expect([writeKey.status, writeKey.body.code]).toEqual([403, 'insufficient_role']);
    const readKey = await as('post', '/api/auth/api-keys', { name: 'ci' }).expect(201);
    expect(readKey.body.scopes).toEqual(['read']);
    await api().get('/api/services').set('Authorization', `Bearer ${readKey.body.key}`).expect(200);
    const owners = await api().get('/api/auth/api-keys').set('Authorization', owner.bearer).expect(200);
    expect(owners.body.data.map((k: { id: string }) => k.id)).not.toContain(readKey.body.id);
  });

  it('a login in two accounts sees only the current account’s resources', async () => {
    const me = await api().get('/api/auth/me').set('Authorization', contractor.bearer).expect(200);
    const ownVps = (await createService(t, me.body.id)).id;
    const onCompany = await api().get('/api/services').set('Authorization', contractor.bearer).expect(200);
    expect(onCompany.body.data.map((s: { id: string }) => s.id).sort()).toEqual([vpsId, storageId].sort());
    await api().get(`/api/services/${ownVps}`).set('Authorization', contractor.bearer).expect(404);
    const home = await switchTo(contractor, me.body.id);
    const onOwn = await api().get('/api/services').set('Authorization', home.bearer).expect(200);
    expect(onOwn.body.data.map((s: { id: string }) => s.id)).toEqual([ownVps]);
    await api().post(`/api/services/${ownVps}/instance/reboot`).set('Authorization', home.bearer).send({}).expect(202);
    // A refresh keeps the account the session acts on.
    const refreshed = await api().post('/api/auth/refresh').send({ refreshToken: home.refreshToken }).expect(200);
    expect(refreshed.body.accountId).toBe(me.body.id);
    contractor = await switchTo({ ...home, bearer: `Bearer ${refreshed.body.accessToken}` }, owner.id);
    const stranger = await createAccount(t);
    const foreign = await api().post('/api/auth/switch-account').set('Authorization', contractor.bearer).send({ accountId: stranger.id });
    expect(foreign.status).toBe(404);
  });

  it('keeps an owner: the last one cannot leave or be demoted; an admin neither grants nor touches owner', async () => {
    const [ownerMember] = await t.db.query('SELECT id FROM account_members WHERE account_id = $1 AND login_id = $1', [owner.id]);
    const leave = await api().delete(`/api/account/members/${ownerMember.id}`).set('Authorization', owner.bearer);
    expect([leave.status, leave.body.code]).toEqual([409, 'last_owner']);
    const demote = await api().patch(`/api/account/members/${ownerMember.id}`).set('Authorization', owner.bearer).send({ role: 'admin' });
    expect([demote.status, demote.body.code]).toEqual([409, 'last_owner']);
    const bad = await api().patch(`/api/account/members/${developerMemberId}`).set('Authorization', owner.bearer).send({ role: 'boss' });
    expect(bad.status).toBe(400);

    const promoted = await api()
      .patch(`/api/account/members/${contractorMemberId}`)
      .set('Authorization', owner.bearer)
      .send({ role: 'admin' })
      .expect(200);
    expect(promoted.body).toMatchObject({ id: contractorMemberId, role: 'admin', email: contractor.email });
    const asAdmin = (path: string) => api().patch(path).set('Authorization', contractor.bearer);
    const grant = await asAdmin(`/api/account/members/${developerMemberId}`).send({ role: 'owner' });
    expect([grant.status, grant.body.code]).toEqual([403, 'insufficient_role']);
    const touch = await asAdmin(`/api/account/members/${ownerMember.id}`).send({ role: 'member' });
    expect([touch.status, touch.body.code]).toEqual([403, 'insufficient_role']);
    const ownerInvite = await invite(`boss-${randomUUID()}@example.test`, 'owner', contractor.bearer);
    expect([ownerInvite.status, ownerInvite.body.code]).toEqual([403, 'insufficient_role']);
    const revocable = await invite(`later-${randomUUID()}@example.test`, 'member', contractor.bearer).expect(201);
    await api().delete(`/api/account/invitations/${revocable.body.id}`).set('Authorization', contractor.bearer).expect(204);
    await api().delete(`/api/account/invitations/${revocable.body.id}`).set('Authorization', contractor.bearer).expect(404);
  });

  it('removing the developer ends their key at once and their token’s access to the account', async () => {
    const key = await api().post('/api/auth/api-keys').set('Authorization', developer.bearer).send({ name: 'deploy' }).expect(201);
    const keyBearer = `Bearer ${key.body.key}`;
    await api().get('/api/services').set('Authorization', keyBearer).expect(200);
    const member = await api().get('/api/services').set('Authorization', developer.bearer);
    expect(member.status).toBe(200);

    await api().delete(`/api/account/members/${developerMemberId}`).set('Authorization', owner.bearer).expect(204);
    await api().get('/api/services').set('Authorization', keyBearer).expect(401);
    const gone = await api().get('/api/services').set('Authorization', developer.bearer);
    expect([gone.status, gone.body.code]).toEqual([403, 'no_account']);
    const me = await api().get('/api/auth/me').set('Authorization', developer.bearer).expect(200);
    expect(me.body).toMatchObject({ role: null, memberId: null });
    expect(me.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([me.body.id]);
    // A refresh lands on an account the login still belongs to.
    const refreshed = await api().post('/api/auth/refresh').send({ refreshToken: developer.refreshToken }).expect(200);
    expect(refreshed.body.accountId).toBe(me.body.id);
    await smtp.waitForMail(owner.email, /Team change/);
    const told = await waitFor(
      async () => smtp.mailsTo(owner.email).some((m) => m.body.includes(`removed ${developer.email} from the account`)),
      (found) => found,
      15_000,
    );
    expect(told).toBe(true);
  });

  it('a member made read-only loses their write keys at once; a member may leave', async () => {
    const key = await api().post('/api/auth/api-keys').set('Authorization', contractor.bearer).send({ name: 'ops' }).expect(201);
    expect(key.body.scopes).toEqual(['read', 'write']);
    await api()
      .patch(`/api/account/members/${contractorMemberId}`)
      .set('Authorization', owner.bearer)
      .send({ role: 'read_only' })
      .expect(200);
    await api().get('/api/services').set('Authorization', `Bearer ${key.body.key}`).expect(401);
    const write = await api().post(`/api/services/${vpsId}/instance/reboot`).set('Authorization', contractor.bearer).send({});
    expect([write.status, write.body.code]).toEqual([403, 'insufficient_role']);
    await api().delete(`/api/account/members/${contractorMemberId}`).set('Authorization', contractor.bearer).expect(204);
    const members = await api().get('/api/account/members').set('Authorization', owner.bearer).expect(200);
    expect(members.body.data.map((m: { email: string }) => m.email)).toEqual([owner.email]);
  });

  it('records each team change, names who made it, and delivers each to the webhook', async () => {
    const events = await api().get('/api/events?entityType=member').set('Authorization', owner.bearer).expect(200);
    const actions = events.body.data.map((e: { action: string }) => e.action);
    for (const action of ['member.join', 'member.role_change', 'member.remove', 'member.leave']) expect(actions).toContain(action);
    const types = ['member.invite', 'member.invitation_delete', 'member.join', 'member.role_change', 'member.remove', 'member.leave'];
    const missing = await waitFor(
      async () => types.filter((type) => receiver.of(type).length === 0),
      (left) => left.length === 0,
      20_000,
    );
    expect(missing).toEqual([]);
    const removal = receiver.of('member.remove')[0].json.data;
    expect(removal.actor).toMatchObject({ email: owner.email, memberId: expect.any(String) });
    expect(removal.details).toEqual({ email: developer.email, role: 'member' });
  });
});

/**
 * Each API process remembers the credentials it verified: a member removed on one replica must be
 * refused by another on the very next request. Two server processes on one PostgreSQL database.
 */
(TEST_DATABASE_URL ? describe : describe.skip)('Teams across API processes (PostgreSQL)', () => {
  let t: TestApp;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    t = await startTestApp();
    [a, b] = await Promise.all([startServerProcess({}), startServerProcess({})]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await t?.close();
  });

  it("refuses a removed member's key and token on the other replica on the very next request", async () => {
    const owner = await createAccount(t);
    const other = await createAccount(t);
    const [member] = await t.db.query(`INSERT INTO account_members (account_id, login_id, role) VALUES ($1, $2, 'member') RETURNING id`, [
      owner.id,
      other.id,
    ]);
    const switched = await request(a.url).post('/api/auth/switch-account').set('Authorization', other.bearer).send({ accountId: owner.id });
    const bearer = `Bearer ${switched.body.accessToken}`;
    const key = await request(a.url).post('/api/auth/api-keys').set('Authorization', bearer).send({ name: 'deploy' }).expect(201);
    const keyBearer = `Bearer ${key.body.key}`;
    for (const credential of [keyBearer, bearer, keyBearer, bearer]) {
      await request(b.url).get('/api/services').set('Authorization', credential).expect(200);
    }
    await request(a.url)
      .patch(`/api/account/members/${member.id}`)
      .set('Authorization', owner.bearer)
      .send({ role: 'read_only' })
      .expect(200);
    const lowered = await request(b.url).post('/api/ssh-keys').set('Authorization', bearer).send({ name: 'k', publicKey: 'x' });
    expect([lowered.status, lowered.body.code]).toEqual([403, 'insufficient_role']);
    await request(b.url).get('/api/services').set('Authorization', keyBearer).expect(401);
    const readKey = await request(a.url).post('/api/auth/api-keys').set('Authorization', bearer).send({ name: 'watch' }).expect(201);
    const readBearer = `Bearer ${readKey.body.key}`;
    for (const credential of [readBearer, bearer, readBearer, bearer]) {
      await request(b.url).get('/api/services').set('Authorization', credential).expect(200);
    }
    await request(a.url).delete(`/api/account/members/${member.id}`).set('Authorization', owner.bearer).expect(204);
    await request(b.url).get('/api/services').set('Authorization', readBearer).expect(401);
    const removed = await request(b.url).get('/api/services').set('Authorization', bearer);
    expect([removed.status, removed.body.code]).toEqual([403, 'no_account']);
  });
});

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import sshpk from 'sshpk';
import { DiscoveryService } from '@nestjs/core';
import { generate } from 'otplib';
import request from 'supertest';
import { ACTIVITY_ACTIONS, CliArgs, CliCommand } from '@app/core';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { linkToken, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitForOrFail } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

const PASSWORD = 'correct horse battery staple';
const freshKey = (comment: string) => {
  const { publicKey } = generateKeyPairSync('ed25519');
  return `${sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh')} ${comment}`;
};
const codeAt = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

interface Expected {
  action: string;
  entity: { type: string; id: string } | null;
  actor: { type: string; id?: string | null; name?: string | null };
  status?: 'succeeded' | 'failed';
  /** New entries the step adds to the account's log (default 1). */
  entries?: number;
}

/**
 * One entry per state-changing operation of every area: each step does one operation the way a
 * customer (or operator) does it and names the entry it must leave, read back through GET /api/events.
 */
describe('Activity log: every operation records one entry', () => {
  let t: TestApp;
  const smtp = new TestSmtpServer();
  /** Every secret handed out or used on the way: none may appear in any entry. */
  const secrets: string[] = [PASSWORD];
  const email = `events-${randomUUID()}@example.test`;
  let accountId: string;
  let bearer: string;
  let sessionId: string;
  let keyBearer: string;
  let keyId: string;
  let totpSecret: string;
  let recoveryCodes: string[];
  let password = PASSWORD;
  let serviceId: string;
  let alertId: string;
  let snapshotId: string;
  let backupId: string;
  let storageId: string;
  let sshKeyId: string;
  let firewallId: string;
  let volumeId: string;
  let zoneId: string;
  let recordId: string;
  let ticketId: string;
  let other: TestAccount;
  const receiver = new WebhookReceiver();
  /** The account's webhook for every event type: its id, and its secrets (the first, then the rotated one). */
  const webhook = { id: '', secrets: [] as string[] };

  beforeAll(async () => {
    await smtp.start();
    await receiver.start();
    t = await startTestApp({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Hosting <no-reply@hosting.test>',
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
    });
    other = await createAccount(t);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
    await receiver.stop();
  });

  const api = () => request(t.http);
  const auth = (r: request.Test, b = bearer) => r.set('Authorization', b);
  const count = async (id = accountId) =>
    (await t.db.query('SELECT count(*)::int AS n FROM activity_events WHERE account_id = $1', [id]))[0].n as number;
  const newest = async (action: string, b = bearer) => {
    const res = await auth(api().get(`/api/events?action=${action}&pageSize=1`), b).expect(200);
    return res.body.data[0];
  };
  const login = async (pw = password) => {
    const res = await api().post('/api/auth/login').send({ email, password: pw }).expect(200);
    secrets.push(res.body.accessToken, res.body.refreshToken);
    return res.body;
  };
  const command = (name: string) =>
    t.app
      .get(DiscoveryService)
      .getProviders()
      .map((w) => w.instance as unknown)
      .find((i): i is CliCommand => i instanceof CliCommand && i.name === name)!;
  const cli = (name: string, args: CliArgs) => command(name).run(args) as Promise<any[]>;
  const volumeActionDone = (id: string, actionId: string) =>
    waitFor(
      async () => (await auth(api().get(`/api/services/${id}/volume/actions/${actionId}`)).expect(200)).body.status,
      (status) => status !== 'running',
    );
  const actionDone = (id: string) =>
    waitFor(
      async () => (await t.db.query('SELECT status FROM instance_actions WHERE service_id = $1 ORDER BY started_at DESC LIMIT 1', [id]))[0],
      (row) => row?.status === 'succeeded',
    );
  const mailToken = async (to: string, subject: RegExp, path: string, nth: number) => {
    await waitFor(
      async () => smtp.mailsTo(to).filter((m) => subject.test(m.body)).length,
      (n) => n >= nth,
    );
    const token = linkToken(smtp.mailsTo(to).filter((m) => subject.test(m.body))[nth - 1], path);
    secrets.push(token);
    return token;
  };

  const deliveredSoFar = async () => {
    const created = await newest('webhook.create');
    const recorded: { id: string }[] = await t.db.query('SELECT id FROM activity_events WHERE account_id = $1 AND created_at >= $2', [
      accountId,
      created.createdAt,
    ]);
    const missing = () => {
      const received = new Set(receiver.received.map((r) => r.json.data.id));
      return recorded.filter((e) => !received.has(e.id)).length;
    };
    await waitForOrFail(
      async () => missing(),
      (n) => n === 0,
      60_000,
      (n) => `${n} entries not delivered`,
    );
  };

  const account = () => ({ type: 'account', id: accountId });
  const steps: [string, () => Promise<Expected>][] = [
    [
      'register',
      async () => {
        const res = await api().post('/api/auth/register').send({ email, password, name: 'Eve Events' }).expect(201);
        accountId = res.body.account.id;
        bearer = `Bearer ${res.body.accessToken}`;
        secrets.push(res.body.accessToken, res.body.refreshToken);
        return { action: 'account.register', entity: account(), actor: { type: 'account', id: accountId, name: 'Eve Events' } };
      },
    ],
    [
      'login',
      async () => {
        const body = await login();
        bearer = `Bearer ${body.accessToken}`;
        const entry = await newest('auth.login');
        sessionId = entry.entity.id;
        return {
          action: 'auth.login',
          entity: { type: 'session', id: sessionId },
          actor: { type: 'account', id: accountId, name: 'Eve Events' },
        };
      },
    ],
    [
      'email verification (before the webhook: an unconfirmed account may not add one)',
      async () => {
        const token = await mailToken(email, /Confirm your email address/, '/confirm-email', 1);
        await api().post('/api/auth/email/verify').send({ token }).expect(204);
        return { action: 'account.email_verify', entity: account(), actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'webhook for every event type, to a receiver on loopback',
      async () => {
        const res = await auth(api().post('/api/webhooks'))
          .send({ url: receiver.url, events: ['*'] })
          .expect(201);
        webhook.id = res.body.id;
        webhook.secrets.push(res.body.secret);
        secrets.push(res.body.secret);
        return { action: 'webhook.create', entity: { type: 'webhook', id: webhook.id }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'failed login (wrong password), against the targeted account',
      async () => {
        await api().post('/api/auth/login').send({ email, password: 'not the password at all' }).expect(401);
        return { action: 'auth.login_failed', entity: account(), actor: { type: 'account', id: accountId }, status: 'failed' };
      },
    ],
    [
      'account update (name)',
      async () => {
        await auth(api().patch('/api/auth/me')).send({ name: 'Eve Renamed' }).expect(200);
        return { action: 'account.update', entity: account(), actor: { type: 'account', id: accountId, name: 'Eve Renamed' } };
      },
    ],
    [
      'email change requested and confirmed',
      async () => {
        const newEmail = `events-new-${randomUUID()}@example.test`;
        await auth(api().patch('/api/auth/me')).send({ email: newEmail, currentPassword: password }).expect(200);
        const token = await mailToken(newEmail, /Confirm/, '/confirm-email', 1);
        await api().post('/api/auth/email/verify').send({ token }).expect(204);
        await auth(api().patch('/api/auth/me')).send({ email, currentPassword: password }).expect(200);
        await api()
          .post('/api/auth/email/verify')
          .send({ token: await mailToken(email, /Confirm your new/i, '/confirm-email', 1) })
          .expect(204);
        return { action: 'account.email_change', entity: account(), actor: { type: 'account', id: accountId }, entries: 4 };
      },
    ],
    [
      'wrong current password on a password change',
      async () => {
        await auth(api().post('/api/auth/password'))
          .send({ currentPassword: 'not the password either', newPassword: 'x'.repeat(12) })
          .expect(400);
        return { action: 'auth.password_check_failed', entity: account(), actor: { type: 'account', id: accountId }, status: 'failed' };
      },
    ],
    [
      'password change',
      async () => {
        const next = 'another long password 2';
        await auth(api().post('/api/auth/password')).send({ currentPassword: password, newPassword: next }).expect(204);
        password = next;
        secrets.push(next);
        return { action: 'auth.password_change', entity: account(), actor: { type: 'account', id: accountId } };
      },
    ],
    [
      '2FA setup',
      async () => {
        const res = await auth(api().post('/api/auth/2fa/setup')).expect(200);
        totpSecret = res.body.secret;
        secrets.push(totpSecret);
        return { action: 'two_factor.setup', entity: account(), actor: { type: 'account', id: accountId } };
      },
    ],
    [
      '2FA enable',
      async () => {
        const code = await codeAt(totpSecret);
        secrets.push(code);
        const res = await auth(api().post('/api/auth/2fa/enable')).send({ password, code }).expect(200);
        recoveryCodes = res.body.recoveryCodes;
        secrets.push(...recoveryCodes);
        return { action: 'two_factor.enable', entity: account(), actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'failed login (wrong 2FA code)',
      async () => {
        const first = await api().post('/api/auth/login').send({ email, password }).expect(200);
        secrets.push(first.body.mfaToken);
        await api().post('/api/auth/login/2fa').send({ mfaToken: first.body.mfaToken, code: '000000' }).expect(401);
        return { action: 'auth.login_failed', entity: account(), actor: { type: 'account', id: accountId }, status: 'failed' };
      },
    ],
    [
      'login with a second factor',
      async () => {
        const first = await api().post('/api/auth/login').send({ email, password }).expect(200);
        const code = await codeAt(totpSecret, 1);
        secrets.push(first.body.mfaToken, code);
        const res = await api().post('/api/auth/login/2fa').send({ mfaToken: first.body.mfaToken, code }).expect(200);
        secrets.push(res.body.accessToken, res.body.refreshToken);
        const entry = await newest('auth.login');
        expect(entry.details).toEqual({ secondFactor: true });
        return { action: 'auth.login', entity: entry.entity, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      '2FA disable',
      async () => {
        await auth(api().post('/api/auth/2fa/disable')).send({ password, code: recoveryCodes[0] }).expect(204);
        return { action: 'two_factor.disable', entity: account(), actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'session revoke',
      async () => {
        const body = await login();
        const otherSession = (await newest('auth.login')).entity.id;
        await auth(api().delete(`/api/auth/sessions/${otherSession}`)).expect(204);
        expect((await auth(api().get('/api/auth/me'), `Bearer ${body.accessToken}`)).status).toBe(401);
        return {
          action: 'session.revoke',
          entity: { type: 'session', id: otherSession },
          actor: { type: 'account', id: accountId },
          entries: 2,
        };
      },
    ],
    [
      'session revoke all others',
      async () => {
        await login();
        await auth(api().delete('/api/auth/sessions')).expect(204);
        return { action: 'session.revoke_all', entity: null, actor: { type: 'account', id: accountId }, entries: 2 };
      },
    ],
    [
      'API key create (access token)',
      async () => {
        const res = await auth(api().post('/api/auth/api-keys')).send({ name: 'deploy bot' }).expect(201);
        keyBearer = `Bearer ${res.body.key}`;
        keyId = res.body.id;
        secrets.push(res.body.key);
        return {
          action: 'api_key.create',
          entity: { type: 'api_key', id: keyId },
          actor: { type: 'account', id: accountId, name: 'Eve Renamed' },
        };
      },
    ],
    [
      'API key create (by an API key: the key is the actor)',
      async () => {
        const res = await auth(api().post('/api/auth/api-keys'), keyBearer).send({ name: 'child key' }).expect(201);
        secrets.push(res.body.key);
        return {
          action: 'api_key.create',
          entity: { type: 'api_key', id: res.body.id },
          actor: { type: 'api_key', id: keyId, name: 'deploy bot' },
        };
      },
    ],
    [
      'SSH key create',
      async () => {
        const res = await auth(api().post('/api/ssh-keys'), keyBearer)
          .send({ name: 'laptop', publicKey: freshKey('ada@laptop') })
          .expect(201);
        sshKeyId = res.body.id;
        return {
          action: 'ssh_key.create',
          entity: { type: 'ssh_key', id: sshKeyId },
          actor: { type: 'api_key', id: keyId, name: 'deploy bot' },
        };
      },
    ],
    [
      'SSH key update',
      async () => {
        await auth(api().patch(`/api/ssh-keys/${sshKeyId}`))
          .send({ name: 'desktop' })
          .expect(200);
        return { action: 'ssh_key.update', entity: { type: 'ssh_key', id: sshKeyId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'SSH key delete',
      async () => {
        await auth(api().delete(`/api/ssh-keys/${sshKeyId}`)).expect(204);
        return { action: 'ssh_key.delete', entity: { type: 'ssh_key', id: sshKeyId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'service provisioned by the operator (staff)',
      async () => {
        const [line] = await cli('service:provision', { email, type: 'vps' });
        serviceId = line.id;
        return { action: 'service.create', entity: { type: 'service', id: serviceId }, actor: { type: 'staff' } };
      },
    ],
    ...(['stop', 'start', 'reboot'] as const).map((verb): [string, () => Promise<Expected>] => [
      `instance ${verb} requested, then finished by the system`,
      async () => {
        await auth(api().post(`/api/services/${serviceId}/instance/${verb}`), keyBearer).expect(202);
        await actionDone(serviceId);
        const finished = await waitFor(
          () => newest('instance.action_succeeded'),
          (e) => e?.details?.type === verb,
        );
        expect(finished).toMatchObject({
          entity: { type: 'service', id: serviceId },
          actor: { type: 'system', id: null },
          status: 'succeeded',
        });
        return {
          action: `instance.${verb}`,
          entity: { type: 'service', id: serviceId },
          actor: { type: 'api_key', id: keyId },
          entries: 2,
        };
      },
    ]),
    [
      'instance rebuilt from an image, then finished by the system',
      async () => {
        const image = await createImage(t);
        await auth(api().post(`/api/services/${serviceId}/instance/rebuild`), keyBearer)
          .send({ image: image.slug })
          .expect(202);
        await actionDone(serviceId);
        const finished = await waitFor(
          () => newest('instance.action_succeeded'),
          (e) => e?.details?.type === 'rebuild',
        );
        expect(finished).toMatchObject({ entity: { type: 'service', id: serviceId }, actor: { type: 'system', id: null } });
        const entry = await newest('instance.rebuild');
        expect(entry.details).toMatchObject({ image: image.slug, sshKeyIds: expect.any(Array) });
        return {
          action: 'instance.rebuild',
          entity: { type: 'service', id: serviceId },
          actor: { type: 'api_key', id: keyId },
          entries: 2,
        };
      },
    ],
    [
      'instance snapshotted, then finished by the system with the consistency it reached',
      async () => {
        const started = await auth(api().post(`/api/services/${serviceId}/instance/snapshots`), keyBearer)
          .send({ name: 'walk' })
          .expect(202);
        snapshotId = started.body.snapshot.imageId;
        await actionDone(serviceId);
        const finished = await waitFor(
          () => newest('instance.action_succeeded'),
          (e) => e?.details?.type === 'snapshot',
        );
        expect(finished.details).toMatchObject({ actionId: started.body.id, consistency: 'crash', sizeBytes: expect.any(Number) });
        expect((await newest('instance.snapshot')).details).toMatchObject({ actionId: started.body.id, imageId: snapshotId, name: 'walk' });
        return {
          action: 'instance.snapshot',
          entity: { type: 'service', id: serviceId },
          actor: { type: 'api_key', id: keyId },
          entries: 2,
        };
      },
    ],
    [
      'snapshot deleted',
      async () => {
        await auth(api().delete(`/api/images/${snapshotId}`)).expect(204);
        return { action: 'image.delete', entity: { type: 'image', id: snapshotId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'daily backups enabled',
      async () => {
        await auth(api().post(`/api/services/${serviceId}/instance/backups/enable`), keyBearer).expect(200);
        return { action: 'instance.backups_enable', entity: { type: 'service', id: serviceId }, actor: { type: 'api_key', id: keyId } };
      },
    ],
    [
      'a backup made by the system',
      async () => {
        const made = (await t.app.get(BackupRunner).run(serviceId, 'operator')) as { backupId: string };
        backupId = made.backupId;
        expect((await newest('instance.backup')).details).toMatchObject({ backupId, sizeBytes: expect.any(Number) });
        return { action: 'instance.backup', entity: { type: 'service', id: serviceId }, actor: { type: 'system', id: null } };
      },
    ],
    [
      'a backup restored, then finished by the system',
      async () => {
        const started = await auth(api().post(`/api/services/${serviceId}/instance/backups/${backupId}/restore`), keyBearer).expect(202);
        await actionDone(serviceId);
        await waitFor(
          () => newest('instance.action_succeeded'),
          (e) => e?.details?.actionId === started.body.id,
        );
        expect((await newest('instance.restore')).details).toMatchObject({ actionId: started.body.id, backupId });
        return {
          action: 'instance.restore',
          entity: { type: 'service', id: serviceId },
          actor: { type: 'api_key', id: keyId },
          entries: 2,
        };
      },
    ],
    [
      'a backup made into an image',
      async () => {
        const image = await auth(api().post(`/api/services/${serviceId}/instance/backups/${backupId}/image`))
          .send({ name: 'kept' })
          .expect(202);
        expect((await newest('instance.backup_image')).details).toMatchObject({ backupId, imageId: image.body.id });
        return { action: 'instance.backup_image', entity: { type: 'service', id: serviceId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'daily backups disabled',
      async () => {
        await auth(api().post(`/api/services/${serviceId}/instance/backups/disable`)).expect(200);
        return {
          action: 'instance.backups_disable',
          entity: { type: 'service', id: serviceId },
          actor: { type: 'account', id: accountId },
        };
      },
    ],
    [
      'metric alert created',
      async () => {
        const created = await auth(api().post(`/api/services/${serviceId}/instance/alerts`), keyBearer)
          .send({ type: 'cpu', above: 95, forMinutes: 10 })
          .expect(201);
        alertId = created.body.id;
        return { action: 'instance.alert_create', entity: { type: 'service', id: serviceId }, actor: { type: 'api_key', id: keyId } };
      },
    ],
    [
      'metric alert deleted',
      async () => {
        await auth(api().delete(`/api/services/${serviceId}/instance/alerts/${alertId}`)).expect(204);
        return { action: 'instance.alert_delete', entity: { type: 'service', id: serviceId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'firewall create',
      async () => {
        firewallId = (await auth(api().post('/api/firewalls')).send({ name: 'web' }).expect(201)).body.id;
        return { action: 'firewall.create', entity: { type: 'firewall', id: firewallId }, actor: account() };
      },
    ],
    [
      'firewall update (its rules replaced)',
      async () => {
        await auth(api().patch(`/api/firewalls/${firewallId}`))
          .send({ rules: [{ direction: 'in', protocol: 'tcp', port: '80', addresses: ['0.0.0.0/0'] }] })
          .expect(200);
        return { action: 'firewall.update', entity: { type: 'firewall', id: firewallId }, actor: account() };
      },
    ],
    [
      'firewall applied to the VPS',
      async () => {
        await auth(api().post(`/api/firewalls/${firewallId}/apply`))
          .send({ serviceIds: [serviceId] })
          .expect(200);
        return { action: 'firewall.apply', entity: { type: 'firewall', id: firewallId }, actor: account() };
      },
    ],
    [
      'firewall removed from the VPS',
      async () => {
        await auth(api().post(`/api/firewalls/${firewallId}/remove`))
          .send({ serviceIds: [serviceId] })
          .expect(200);
        return { action: 'firewall.remove', entity: { type: 'firewall', id: firewallId }, actor: account() };
      },
    ],
    [
      'firewall delete',
      async () => {
        await auth(api().delete(`/api/firewalls/${firewallId}`)).expect(204);
        return { action: 'firewall.delete', entity: { type: 'firewall', id: firewallId }, actor: account() };
      },
    ],
    [
      'DNS zone created',
      async () => {
        zoneId = (
          await auth(api().post('/api/dns/zones'))
            .send({ name: `events-${Date.now()}.example.org` })
            .expect(201)
        ).body.id;
        return { action: 'dns_zone.create', entity: { type: 'dns_zone', id: zoneId }, actor: account() };
      },
    ],
    [
      'DNS record created',
      async () => {
        recordId = (
          await auth(api().post(`/api/dns/zones/${zoneId}/records`))
            .send({ name: 'www', type: 'A', value: '203.0.113.5' })
            .expect(201)
        ).body.id;
        return { action: 'dns_record.create', entity: { type: 'dns_zone', id: zoneId }, actor: account() };
      },
    ],
    [
      'DNS record changed',
      async () => {
        await auth(api().patch(`/api/dns/zones/${zoneId}/records/${recordId}`))
          .send({ ttl: 600 })
          .expect(200);
        return { action: 'dns_record.update', entity: { type: 'dns_zone', id: zoneId }, actor: account() };
      },
    ],
    [
      'DNS record deleted',
      async () => {
        await auth(api().delete(`/api/dns/zones/${zoneId}/records/${recordId}`)).expect(204);
        return { action: 'dns_record.delete', entity: { type: 'dns_zone', id: zoneId }, actor: account() };
      },
    ],
    [
      'DNS zone imported',
      async () => {
        await auth(api().post(`/api/dns/zones/${zoneId}/import`))
          .set('Content-Type', 'text/plain')
          .send('www 300 IN A 203.0.113.6\n')
          .expect(200);
        return { action: 'dns_zone.import', entity: { type: 'dns_zone', id: zoneId }, actor: account() };
      },
    ],
    [
      'DNS zone deleted',
      async () => {
        await auth(api().delete(`/api/dns/zones/${zoneId}`)).expect(204);
        return { action: 'dns_zone.delete', entity: { type: 'dns_zone', id: zoneId }, actor: account() };
      },
    ],
    [
      "reverse DNS of the VPS's address set",
      async () => {
        const ip = (await auth(api().get(`/api/services/${serviceId}`)).expect(200)).body.instance.ipv4;
        await auth(api().put(`/api/services/${serviceId}/instance/rdns`))
          .send({ ip, ptr: 'mail.example.org' })
          .expect(200);
        return { action: 'instance.rdns_update', entity: { type: 'service', id: serviceId }, actor: account() };
      },
    ],
    [
      'volume attached to the VPS',
      async () => {
        volumeId = (await createService(t, accountId, { type: 'volume' })).id;
        const res = await auth(api().post(`/api/services/${volumeId}/volume/attach`))
          .send({ serviceId })
          .expect(202);
        await volumeActionDone(volumeId, res.body.id);
        return { action: 'volume.attach', entity: { type: 'service', id: volumeId }, actor: account() };
      },
    ],
    [
      'volume grown',
      async () => {
        const res = await auth(api().post(`/api/services/${volumeId}/volume/resize`))
          .send({ sizeGb: 20 })
          .expect(202);
        await volumeActionDone(volumeId, res.body.id);
        return { action: 'volume.resize', entity: { type: 'service', id: volumeId }, actor: account() };
      },
    ],
    [
      'volume detached',
      async () => {
        const res = await auth(api().post(`/api/services/${volumeId}/volume/detach`)).expect(202);
        await volumeActionDone(volumeId, res.body.id);
        return { action: 'volume.detach', entity: { type: 'service', id: volumeId }, actor: account() };
      },
    ],
    [
      'console opened',
      async () => {
        const res = await auth(api().get(`/api/services/${serviceId}/instance/console`)).expect(200);
        secrets.push(res.body.password, new URL(res.body.url).searchParams.get('token')!);
        return { action: 'instance.console', entity: { type: 'service', id: serviceId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'root password reset (the password in no entry, webhook or log)',
      async () => {
        const res = await auth(api().post(`/api/services/${serviceId}/instance/reset-password`), keyBearer).expect(200);
        secrets.push(res.body.rootPassword);
        expect((await newest('instance.password_reset')).details).toEqual({ user: 'root' });
        return { action: 'instance.password_reset', entity: { type: 'service', id: serviceId }, actor: { type: 'api_key', id: keyId } };
      },
    ],
    [
      'instance rescued (its password in no entry, webhook or log), then finished by the system',
      async () => {
        await createImage(t, { rescue: true });
        const res = await auth(api().post(`/api/services/${serviceId}/instance/rescue`), keyBearer)
          .send({})
          .expect(202);
        secrets.push(res.body.rootPassword);
        await actionDone(serviceId);
        await waitFor(
          () => newest('instance.action_succeeded'),
          (e) => e?.details?.type === 'rescue',
        );
        expect((await newest('instance.rescue')).details).toMatchObject({ actionId: res.body.id, sshKeyIds: expect.any(Array) });
        return { action: 'instance.rescue', entity: { type: 'service', id: serviceId }, actor: { type: 'api_key', id: keyId }, entries: 2 };
      },
    ],
    [
      'instance unrescued, then finished by the system',
      async () => {
        const res = await auth(api().post(`/api/services/${serviceId}/instance/unrescue`)).expect(202);
        await actionDone(serviceId);
        await waitFor(
          () => newest('instance.action_succeeded'),
          (e) => e?.details?.type === 'unrescue',
        );
        await waitFor(
          async () => (await auth(api().get(`/api/services/${serviceId}`)).expect(200)).body.instance.rescue,
          (rescue) => rescue === false,
        );
        expect((await newest('instance.unrescue')).details).toEqual({ actionId: res.body.id, reason: 'unrescue' });
        return {
          action: 'instance.unrescue',
          entity: { type: 'service', id: serviceId },
          actor: { type: 'account', id: accountId },
          entries: 2,
        };
      },
    ],
    [
      'service status changed by the operator (staff)',
      async () => {
        await cli('service:set-status', { id: serviceId, status: 'suspended', reason: 'unpaid' });
        const entry = await newest('service.status_change');
        expect(entry.details).toEqual({ from: 'active', to: 'suspended', reason: 'unpaid' });
        return { action: 'service.status_change', entity: { type: 'service', id: serviceId }, actor: { type: 'staff' } };
      },
    ],
    [
      'object storage credentials viewed',
      async () => {
        storageId = (await createService(t, accountId, { type: 'object_storage' })).id;
        const res = await auth(api().get(`/api/services/${storageId}/object-storage/credentials`)).expect(200);
        secrets.push(res.body.secretAccessKey);
        return {
          action: 'object_storage.credentials_view',
          entity: { type: 'service', id: storageId },
          actor: { type: 'account', id: accountId },
        };
      },
    ],
    [
      'object storage key rotated',
      async () => {
        const res = await auth(api().post(`/api/services/${storageId}/object-storage/credentials/rotate`)).expect(200);
        secrets.push(res.body.secretAccessKey);
        const entry = await newest('object_storage.credentials_rotate');
        expect(entry.details).toEqual({ accessKeyId: res.body.accessKeyId });
        return {
          action: 'object_storage.credentials_rotate',
          entity: { type: 'service', id: storageId },
          actor: { type: 'account', id: accountId },
        };
      },
    ],
    [
      'ticket create',
      async () => {
        const res = await auth(api().post('/api/support/tickets'), keyBearer).send({ subject: 'Disk full', message: 'Help' }).expect(200);
        ticketId = res.body.id;
        return { action: 'ticket.create', entity: { type: 'ticket', id: ticketId }, actor: { type: 'api_key', id: keyId } };
      },
    ],
    [
      'ticket reply',
      async () => {
        await auth(api().post(`/api/support/tickets/${ticketId}/reply`))
          .send({ message: 'More details' })
          .expect(201);
        return { action: 'ticket.reply', entity: { type: 'ticket', id: ticketId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'staff reply from the operator command line',
      async () => {
        await cli('ticket:staff-reply', { ticket: ticketId, message: 'Fixed', name: 'Grace' });
        return { action: 'ticket.reply', entity: { type: 'ticket', id: ticketId }, actor: { type: 'staff', name: 'Grace' } };
      },
    ],
    [
      'ticket close',
      async () => {
        await auth(api().post(`/api/support/tickets/${ticketId}/close`)).expect(200);
        return { action: 'ticket.close', entity: { type: 'ticket', id: ticketId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'API key create by the operator (staff)',
      async () => {
        const [line] = await cli('api-key:create', { email, name: 'ops key' });
        secrets.push(line.key);
        return { action: 'api_key.create', entity: { type: 'api_key', id: line.id }, actor: { type: 'staff' } };
      },
    ],
    [
      'API key revoke',
      async () => {
        await auth(api().delete(`/api/auth/api-keys/${keyId}`)).expect(204);
        return { action: 'api_key.revoke', entity: { type: 'api_key', id: keyId }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'refused API key (revoked), against its account, once per minute',
      async () => {
        await auth(api().get('/api/services'), keyBearer).expect(401);
        await auth(api().get('/api/services'), keyBearer).expect(401);
        const entry = await newest('api_key.refused');
        expect(entry.details).toEqual({ reason: 'revoked' });
        return {
          action: 'api_key.refused',
          entity: { type: 'api_key', id: keyId },
          actor: { type: 'api_key', id: keyId, name: 'deploy bot' },
          status: 'failed',
        };
      },
    ],
    [
      'password reset requested and done',
      async () => {
        await api().post('/api/auth/password/forgot').send({ email }).expect(202);
        const token = await mailToken(email, /Reset your password/, '/reset-password', 1);
        const entry = await newest('auth.password_reset_request');
        expect(entry).toMatchObject({
          entity: account(),
          actor: { type: 'account', id: accountId },
          ip: expect.any(String),
          requestId: expect.any(String),
        });
        // The reset disables the endpoint, which fails what is still undelivered: on a slow machine the
        // deliveries of the steps before may lag behind, so they arrive first.
        await deliveredSoFar();
        const next = 'a third long password 3';
        secrets.push(next);
        await api().post('/api/auth/password/reset').send({ token, newPassword: next }).expect(204);
        password = next;
        bearer = `Bearer ${(await login()).accessToken}`;
        await newest('auth.login');
        // The reset took the account back: the webhook was disabled and the two live keys (the child
        // key and the operator's) revoked, each recorded.
        expect(await newest('webhook.disable')).toMatchObject({
          entity: { type: 'webhook', id: webhook.id },
          details: { reason: 'password_reset' },
        });
        expect(await newest('api_key.revoke')).toMatchObject({ details: { reason: 'password_reset' } });
        return { action: 'auth.password_reset', entity: account(), actor: { type: 'account', id: accountId }, entries: 6 };
      },
    ],
    [
      'webhook update (turned on again after the reset)',
      async () => {
        await auth(api().patch(`/api/webhooks/${webhook.id}`))
          .send({ description: 'every event', enabled: true })
          .expect(200);
        return { action: 'webhook.update', entity: { type: 'webhook', id: webhook.id }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'webhook secret rotation',
      async () => {
        const res = await auth(api().post(`/api/webhooks/${webhook.id}/rotate-secret`)).expect(200);
        webhook.secrets.push(res.body.secret);
        secrets.push(res.body.secret);
        return { action: 'webhook.rotate_secret', entity: { type: 'webhook', id: webhook.id }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'webhook test delivery',
      async () => {
        await auth(api().post(`/api/webhooks/${webhook.id}/test`)).expect(202);
        return { action: 'webhook.test', entity: { type: 'webhook', id: webhook.id }, actor: { type: 'account', id: accountId } };
      },
    ],
    [
      'logout',
      async () => {
        const entry = await newest('auth.login');
        await auth(api().post('/api/auth/logout')).expect(204);
        bearer = `Bearer ${(await login()).accessToken}`;
        return { action: 'auth.logout', entity: entry.entity, actor: { type: 'account', id: accountId }, entries: 2 };
      },
    ],
  ];

  it.each(steps)('%s', async (_, step) => {
    const before = accountId ? await count() : 0;
    const expected = await step();
    // Failed sign-ins are recorded after the answer (an unknown email must not answer faster).
    await waitFor(count, (n) => n >= before + (expected.entries ?? 1));
    const entry = await waitFor(
      () => newest(expected.action),
      (e) => Boolean(e) && (expected.entity === null ? e.entity === null : e.entity?.id === expected.entity.id),
    );
    expect(entry).toMatchObject({
      action: expected.action,
      entity: expected.entity,
      actor: expected.actor,
      status: expected.status ?? 'succeeded',
    });
    // What a customer did over HTTP carries that request's facts (passed explicitly, not from a context).
    if (expected.actor.type === 'account' || expected.actor.type === 'api_key') {
      expect(entry).toMatchObject({ requestId: expect.any(String), ip: expect.any(String) });
    }
    expect(await count()).toBe(before + (expected.entries ?? 1));
  });

  it('records the request facts: ip, user agent, request id', async () => {
    const res = await auth(api().post('/api/ssh-keys'))
      .set('User-Agent', 'events-test/1.0')
      .set('X-Request-Id', 'events-test-request-1')
      .send({ name: 'ua', publicKey: freshKey('ua@test') })
      .expect(201);
    const entry = await newest('ssh_key.create');
    expect(entry).toMatchObject({
      entity: { type: 'ssh_key', id: res.body.id },
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: 'events-test/1.0',
      requestId: 'events-test-request-1',
    });
  });

  it('the operator creating an account is recorded as staff', async () => {
    const made = `events-ops-${randomUUID()}@example.test`;
    const [line] = await cli('account:create', { email: made, password: 'a long enough pw', name: 'Ops Made' });
    const [row] = await t.db.query('SELECT action, actor_type FROM activity_events WHERE account_id = $1', [line.id]);
    expect(row).toEqual({ action: 'account.register', actor_type: 'staff' });
  });

  it('never stores a secret it saw on the way', async () => {
    const rows = await t.db.query('SELECT * FROM activity_events WHERE account_id = $1', [accountId]);
    expect(rows.length).toBeGreaterThan(30);
    const stored = JSON.stringify(rows);
    for (const secret of secrets.filter((s) => s && s.length >= 8))
      expect({ secret, found: stored.includes(secret) }).toEqual({ secret, found: false });
  });

  it('delivers every entry recorded after the webhook existed to it: each event type, signed, once, without secrets', async () => {
    const created = await newest('webhook.create');
    const recorded: { id: string; action: string; created_at: Date }[] = await t.db.query(
      'SELECT id, action, created_at FROM activity_events WHERE account_id = $1 AND created_at >= $2 ORDER BY created_at',
      [accountId, created.createdAt],
    );
    // Nothing recorded while the reset had the endpoint disabled (its own transaction, up to the update
    // that turned it on again) goes to it.
    const time = (e?: { created_at: Date }) => new Date(e!.created_at).getTime();
    const resetAt = time(recorded.find((e) => e.action === 'auth.password_reset'));
    const enabledAt = time(recorded.find((e) => e.action === 'webhook.update' && time(e) > resetAt));
    const entries = recorded.filter((e) => time(e) < resetAt || time(e) >= enabledAt);
    await waitFor(
      async () => new Set(receiver.received.map((r) => r.json.data.id)).size,
      (n) => n >= entries.length,
      60_000,
    );
    const byEntry = new Map<string, { types: Set<string>; messageIds: Set<string> }>();
    for (const hook of receiver.received) {
      const verified = webhook.secrets.some((secret) => {
        try {
          return Boolean(WebhookReceiver.verify(secret, hook));
        } catch {
          return false;
        }
      });
      expect({ type: hook.json.type, verified }).toEqual({ type: hook.json.type, verified: true });
      const seen = byEntry.get(hook.json.data.id) ?? { types: new Set(), messageIds: new Set() };
      seen.types.add(hook.json.type);
      seen.messageIds.add(String(hook.headers['webhook-id']));
      byEntry.set(hook.json.data.id, seen);
    }
    // One message per entry (a retry would repeat its webhook-id), typed as the entry's action.
    expect(entries.map((e) => ({ id: e.id, action: e.action, ...flatten(byEntry.get(e.id)) }))).toEqual(
      entries.map((e) => ({ id: e.id, action: e.action, types: [e.action], messages: 1 })),
    );
    expect(byEntry.size).toBe(entries.length);
    // Every event type reached the endpoint but those this account cannot cause once its webhook
    // exists (registering and confirming the address come first, deleting the webhook ends it), a
    // reset (it disables the endpoint first, and what it disables), or that this walk does not cause
    // (a hypervisor failure, the summary of a flood of failed sign-ins, the hypervisor's own
    // provisioning and reconciliation, metric alerts crossing, an evacuation off a dead host, a team's
    // invitations and member changes: in their own suites, the teams suite checking each is delivered).
    const delivered = new Set(entries.map((e) => e.action));
    expect(ACTIVITY_ACTIONS.filter((a) => !delivered.has(a))).toEqual([
      'account.register',
      'account.email_verify',
      'auth.failures_summary',
      'auth.password_reset',
      'member.invite',
      'member.invitation_delete',
      'member.join',
      'member.role_change',
      'member.remove',
      'member.leave',
      'instance.action_failed',
      'instance.provisioned',
      'instance.provision_failed',
      'instance.power_state_observed',
      'instance.machine_missing',
      'instance.evacuate',
      'instance.alert_fired',
      'instance.alert_resolved',
      'webhook.delete',
      'webhook.disable',
    ]);
    const bodies = receiver.received.map((r) => r.body).join('\n');
    for (const secret of secrets.filter((s) => s && s.length >= 8))
      expect({ secret, found: bodies.includes(secret) }).toEqual({ secret, found: false });
  }, 90_000);

  it('deleting the webhook is recorded, and nothing more is delivered to it', async () => {
    const before = await count();
    await auth(api().delete(`/api/webhooks/${webhook.id}`)).expect(204);
    const entry = await newest('webhook.delete');
    expect(entry).toMatchObject({
      entity: { type: 'webhook', id: webhook.id },
      actor: { type: 'account', id: accountId },
      status: 'succeeded',
    });
    expect(await count()).toBe(before + 1);
    const received = receiver.received.length;
    await auth(api().patch('/api/auth/me')).send({ name: 'Eve After' }).expect(200);
    await newest('account.update');
    expect(await t.db.query('SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1', [webhook.id])).toEqual([]);
    expect(receiver.received.length).toBe(received);
  });

  it('another account sees none of it', async () => {
    const res = await auth(api().get('/api/events'), other.bearer).expect(200);
    expect(res.body.data.every((e: { actor: { id: string } }) => e.actor.id !== accountId)).toBe(true);
  });
});

function flatten(seen?: { types: Set<string>; messageIds: Set<string> }): { types: string[]; messages: number } {
  return { types: [...(seen?.types ?? [])], messages: seen?.messageIds.size ?? 0 };
}

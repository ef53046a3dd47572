// The crawl: every operation of the document with the demo account (and one registered
// account for the Auth flow), the successes and each error status it can provoke.
const { randomUUID } = require('node:crypto');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { client, until } = require('./client');

const idempotent = () => ({ 'Idempotency-Key': randomUUID() });

async function crawl({ base, api, demoKey, sshKey, outbox }) {
  const report = { calls: [], responseViolations: [], unexpected: [] };
  const call = client(base, report);
  const token = `Bearer ${demoKey}`;
  const direct = async (path) => (await fetch(api + path, { headers: { Authorization: token } })).json();
  const ctx = { call, direct, token, report, sshKey };

  await products(ctx);
  await images(ctx);
  await services(ctx);
  await apiKeys(ctx);
  await sshKeys(ctx);
  await firewalls(ctx);
  await dns(ctx);
  await webhooks(ctx);
  await support(ctx, api);
  await notifications(ctx);
  await events(ctx);
  await accountSecurity(ctx, outbox);
  await teams(ctx, outbox);
  await auth(ctx);
  return report;
}

/** The demo's db-data volume, detached, goes onto web-01 (same region), grows and comes off. */
async function volumes({ call, direct, token }, { web, storage, volume }) {
  const path = '/api/services/{id}/volume';
  const params = { id: volume.id };
  await call(`get ${path}`, { token, params });
  await call(`get ${path}`, { token, params: { id: web.id }, expect: 404 });
  const act = async (verb, body, expect = 202) => {
    const res = await call(`post ${path}/${verb}`, { token, params, headers: idempotent(), body, expect });
    if (expect !== 202) return;
    await until(
      () => direct(`/api/services/${volume.id}/volume/actions/${res.body.id}`),
      (a) => a.status !== 'running',
      `volume action ${res.body.id}`,
    );
    await call(`get ${path}/actions/{actionId}`, { token, params: { id: volume.id, actionId: res.body.id } });
  };
  await act('attach', { serviceId: storage.id }, 404);
  await act('attach', { serviceId: 'x' }, 400);
  await act('attach', { serviceId: web.id });
  await act('attach', { serviceId: web.id }, 409); // volume_in_use
  await act('resize', { sizeGb: 1 }, 400); // grow only
  await act('resize', { sizeGb: 120 });
  await act('detach');
  await act('detach', undefined, 409); // not attached
  await call(`get ${path}/actions`, { token, params, query: { pageSize: 2 } });
  await call(`get ${path}/actions/{actionId}`, { token, params: { id: volume.id, actionId: randomUUID() }, expect: 404 });
}

/** The demo's web-01 has daily backups and one backup. */
async function backups({ call, direct, token }, { web, staging, storage, settle }) {
  const path = '/api/services/{id}/instance/backups';
  const list = (await call(`get ${path}`, { token, params: { id: web.id } })).body.data;
  if (!list.length) throw new Error('the demo data has no backup of web-01');
  await call(`get ${path}`, { token, params: { id: storage.id }, expect: 404 });
  await call(`post ${path}/enable`, { token, params: { id: staging.id }, headers: idempotent() });
  await call(`post ${path}/disable`, { token, params: { id: staging.id }, headers: idempotent() });
  await call(`post ${path}/enable`, { token, params: { id: storage.id }, headers: idempotent(), expect: 404 });
  const backup = { id: web.id, backupId: list[0].id };
  await call(`post ${path}/{backupId}/restore`, {
    token,
    params: { id: web.id, backupId: randomUUID() },
    headers: idempotent(),
    expect: 404,
  });
  await settle(web, (await call(`post ${path}/{backupId}/restore`, { token, params: backup, headers: idempotent(), expect: 202 })).body);
  const image = (
    await call(`post ${path}/{backupId}/image`, {
      token,
      params: backup,
      headers: idempotent(),
      body: { name: 'from backup' },
      expect: 202,
    })
  ).body;
  await call(`post ${path}/{backupId}/image`, { token, params: backup, headers: idempotent(), body: { name: '' }, expect: 400 });
  await until(
    () => direct(`/api/images/${image.id}`),
    (i) => i.status !== 'creating',
    `image ${image.id}`,
  );
  await call('get /api/images/{id}', { token, params: { id: image.id } });
  await call('delete /api/images/{id}', { token, params: { id: image.id }, expect: 204 });
}

async function products({ call, token }) {
  const list = await call('get /api/products', { token, query: { pageSize: 100 } });
  await call('get /api/products', { token, query: { type: 'object_storage' } });
  await call('get /api/products/{id}', { token, params: { id: list.body.data[0].id } });
  await call('get /api/products/{id}', { token, params: { id: randomUUID() }, expect: 404 });
  await call('get /api/products', { token, query: { pageSize: 0 }, expect: 400 });
  await call('get /api/products', { expect: 401 });
}

async function images({ call, token }) {
  const list = await call('get /api/images', { token });
  await call('get /api/images/{id}', { token, params: { id: list.body.data[0].id } });
  await call('get /api/images/{id}', { token, params: { id: randomUUID() }, expect: 404 });
  await call('get /api/images', { token, query: { pageSize: 0 }, expect: 400 });
  await call('get /api/images', { expect: 401 });
}

async function services({ call, direct, token, report }) {
  const all = (await call('get /api/services', { token, query: { pageSize: 100 } })).body.data;
  await call('get /api/services', { token, query: { type: 'vps', status: 'active' } });
  await call('get /api/services', { token, query: { type: 'object_storage' } });
  await call('get /api/services', { token, query: { type: 'volume' } });
  for (const service of all) await call('get /api/services/{id}', { token, params: { id: service.id } });
  await call('get /api/services/{id}', { token, params: { id: 'not-a-uuid' }, expect: 400 });
  await call('get /api/services/{id}', { token, params: { id: randomUUID() }, expect: 404 });
  const named = (name) => {
    const service = all.find((s) => s.name === name);
    if (!service) throw new Error(`the demo data has no service ${name}`);
    return service;
  };
  const [web, staging, storage] = [named('web-01'), named('staging'), named('backups')];

  // The demo history of web-01 holds actions that succeeded and one that failed.
  const history = (await call('get /api/services/{id}/instance/actions', { token, params: { id: web.id } })).body.data;
  for (const action of history)
    await call('get /api/services/{id}/instance/actions/{actionId}', { token, params: { id: web.id, actionId: action.id } });
  if (!history.some((a) => a.status === 'failed') || !history.some((a) => a.status === 'succeeded'))
    report.unexpected.push('demo actions lack a failed or a succeeded one');

  const act = (type, service, expect = 202) =>
    call(`post /api/services/{id}/instance/${type}`, { token, params: { id: service.id }, headers: idempotent(), expect });
  const settle = async (service, action) => {
    await until(
      () => direct(`/api/services/${service.id}/instance/actions/${action.id}`),
      (a) => a.status !== 'running',
      `action ${action.id}`,
    );
    await call('get /api/services/{id}/instance/actions/{actionId}', { token, params: { id: service.id, actionId: action.id } });
  };
  const start = await act('start', staging);
  await act('reboot', staging, 409); // action_in_progress
  await settle(staging, start.body);
  await act('start', staging, 409); // invalid_state: already running
  await settle(staging, (await act('reboot', staging)).body);
  await settle(staging, (await act('stop', staging)).body);
  await act('start', storage, 404); // object storage has no instance
  const rebuild = (service, body, expect = 202) =>
    call('post /api/services/{id}/instance/rebuild', { token, params: { id: service.id }, headers: idempotent(), body, expect });
  await rebuild(staging, { image: 'no-such-image' }, 400);
  await settle(staging, (await rebuild(staging, { image: 'debian-12' })).body); // boots it
  await settle(staging, (await act('stop', staging)).body);
  await call('get /api/services/{id}/instance/actions', { token, params: { id: staging.id }, query: { pageSize: 2 } });
  const snapshot = (body, expect = 202) =>
    call('post /api/services/{id}/instance/snapshots', { token, params: { id: staging.id }, headers: idempotent(), body, expect });
  await snapshot({ name: '' }, 400);
  const snapshotAction = (await snapshot({ name: 'crawl snapshot' })).body;
  await settle(staging, snapshotAction);
  const imageId = (await direct(`/api/services/${staging.id}/instance/actions/${snapshotAction.id}`)).snapshot.imageId;
  await call('get /api/images/{id}', { token, params: { id: imageId } });
  await call('delete /api/images/{id}', { token, params: { id: imageId }, expect: 204 });
  await call('delete /api/images/{id}', { token, params: { id: imageId }, expect: 404 });
  await backups({ call, direct, token }, { web, staging, storage, settle });
  await volumes({ call, direct, token }, { web, storage, volume: named('db-data') });
  await call('post /api/services/{id}/instance/reset-password', { token, params: { id: web.id } });
  await call('post /api/services/{id}/instance/reset-password', { token, params: { id: staging.id }, expect: 409 }); // stopped
  // Rescue: the demo's rescue image boots; not idempotent (its answer holds a password).
  const rescue = (body, expect = 202) =>
    call('post /api/services/{id}/instance/rescue', { token, params: { id: staging.id }, body, expect });
  await rescue({ sshKeyIds: ['nope'] }, 400);
  await settle(staging, (await rescue({})).body);
  await rescue({}, 409); // in rescue already
  await call('post /api/services/{id}/instance/unrescue', { token, params: { id: staging.id }, headers: idempotent(), expect: 202 }).then(
    (res) => settle(staging, res.body),
  );
  await settle(staging, (await act('stop', staging)).body);

  await call('get /api/services/{id}/instance/console', { token, params: { id: web.id } });
  await call('get /api/services/{id}/instance/console', { token, params: { id: staging.id }, expect: 409 }); // stopped
  await call('get /api/services/{id}/instance/metrics', { token, params: { id: web.id } });
  await call('get /api/services/{id}/instance/metrics', { token, params: { id: web.id }, query: { type: 'cpu', step: '60' } });
  await call('get /api/services/{id}/instance/metrics', { token, params: { id: web.id }, query: { step: '0' }, expect: 400 });
  await call('get /api/services/{id}/instance/metrics', { token, params: { id: storage.id }, expect: 404 });
  const alerts = '/api/services/{id}/instance/alerts';
  const alert = await call(`post ${alerts}`, {
    token,
    params: { id: web.id },
    body: { type: 'cpu', above: 90, forMinutes: 5 },
    expect: 201,
  });
  await call(`post ${alerts}`, { token, params: { id: web.id }, body: { type: 'cpu', above: 101, forMinutes: 5 }, expect: 400 });
  await call(`get ${alerts}`, { token, params: { id: web.id } });
  await call(`get ${alerts}`, { token, params: { id: storage.id }, expect: 404 });
  await call(`delete ${alerts}/{alertId}`, { token, params: { id: web.id, alertId: alert.body.id }, expect: 204 });
  await call(`delete ${alerts}/{alertId}`, { token, params: { id: web.id, alertId: alert.body.id }, expect: 404 });
  await call('get /api/services/{id}/object-storage/credentials', { token, params: { id: storage.id } });
  await call('get /api/services/{id}/object-storage/credentials', { token, params: { id: web.id }, expect: 404 });
  await call('post /api/services/{id}/object-storage/credentials/rotate', { token, params: { id: storage.id }, headers: idempotent() });
  await call('post /api/services/{id}/object-storage/credentials/rotate', {
    token,
    params: { id: web.id },
    headers: idempotent(),
    expect: 404,
  });
  await call('get /api/services/{id}/object-storage/buckets', { token, params: { id: storage.id } });
  await call('get /api/services/{id}/object-storage/buckets', { token, params: { id: storage.id }, query: { pageSize: 0 }, expect: 400 });
  await call('post /api/services/{id}/object-storage/usage/refresh', { token, params: { id: storage.id }, headers: idempotent() });
  await call('post /api/services/{id}/object-storage/usage/refresh', { token, params: { id: web.id }, headers: idempotent(), expect: 404 });
}

async function apiKeys({ call, token, sshKey }) {
  const readOnly = await call('post /api/auth/api-keys', { token, body: { name: 'crawl read-only', scopes: ['read'] }, expect: 201 });
  await call('post /api/auth/api-keys', { token, body: { name: '' }, expect: 400 });
  await call('get /api/auth/api-keys', { token });
  await call('get /api/auth/api-keys/{id}', { token, params: { id: readOnly.body.id } });
  await call('get /api/services', { token: `Bearer ${readOnly.body.key}` });
  await call('post /api/ssh-keys', { token: `Bearer ${readOnly.body.key}`, body: { name: 'nope', publicKey: sshKey() }, expect: 403 });
  await call('delete /api/auth/api-keys/{id}', { token, params: { id: readOnly.body.id }, expect: 204 });
  await call('delete /api/auth/api-keys/{id}', { token, params: { id: readOnly.body.id }, expect: 404 });
}

async function webhooks({ call, token }) {
  // `.invalid` never resolves (RFC 6761): the crawl queues deliveries that reach nobody.
  const url = 'https://receiver.invalid/hooks';
  const created = await call('post /api/webhooks', {
    token,
    headers: idempotent(),
    body: { url, events: ['ssh_key.create'] },
    expect: 201,
  });
  const id = created.body.id;
  await call('post /api/webhooks', { token, body: { url, events: ['ssh_key.explode'] }, expect: 400 });
  await call('post /api/webhooks', { token, body: { url: 'https://169.254.169.254/', events: ['*'] }, expect: 400 });
  await call('get /api/webhooks', { token });
  await call('get /api/webhooks/{id}', { token, params: { id } });
  await call('get /api/webhooks/{id}', { token, params: { id: randomUUID() }, expect: 404 });
  await call('patch /api/webhooks/{id}', { token, params: { id }, body: { events: ['*'], description: 'crawl' } });
  await call('post /api/webhooks/{id}/rotate-secret', { token, params: { id }, headers: idempotent() });
  const test = await call('post /api/webhooks/{id}/test', { token, params: { id }, headers: idempotent(), expect: 202 });
  await call('get /api/webhooks/{id}/deliveries', { token, params: { id } });
  const deliveryId = test.body.id;
  await call('get /api/webhooks/{id}/deliveries/{deliveryId}/attempts', { token, params: { id, deliveryId } });
  await call('get /api/webhooks/{id}/deliveries/{deliveryId}/attempts', { token, params: { id, deliveryId: randomUUID() }, expect: 404 });
  await call('post /api/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
    token,
    params: { id, deliveryId },
    headers: idempotent(),
    expect: 202,
  });
  await call('post /api/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
    token,
    params: { id, deliveryId: randomUUID() },
    headers: idempotent(),
    expect: 404,
  });
  await call('patch /api/webhooks/{id}', { token, params: { id }, body: { enabled: false } });
  await call('post /api/webhooks/{id}/test', { token, params: { id }, headers: idempotent(), expect: 409 });
  await call('delete /api/webhooks/{id}', { token, params: { id }, expect: 204 });
}

async function sshKeys({ call, token, sshKey }) {
  const publicKey = sshKey('crawl@laptop');
  const key = idempotent();
  const created = await call('post /api/ssh-keys', { token, headers: key, body: { name: 'laptop', publicKey }, expect: 201 });
  await call('post /api/ssh-keys', { token, headers: key, body: { name: 'other', publicKey: sshKey() }, expect: 422 });
  await call('post /api/ssh-keys', { token, body: { name: 'again', publicKey }, expect: 409 });
  await call('post /api/ssh-keys', { token, body: { name: 'weak', publicKey: 'ssh-dss AAAAB3NzaC1kc3M=' }, expect: 400 });
  const id = created.body.id;
  await call('get /api/ssh-keys', { token });
  await call('get /api/ssh-keys/{id}', { token, params: { id } });
  await call('patch /api/ssh-keys/{id}', { token, params: { id }, body: { name: 'laptop-2' } });
  await call('delete /api/ssh-keys/{id}', { token, params: { id }, expect: 204 });
  await call('get /api/ssh-keys/{id}', { token, params: { id }, expect: 404 });
}

/** The demo's web-01 (the simulator: no network, so a firewall applies and is enforced at once). */
async function firewalls({ call, direct, token }) {
  const web = (await direct('/api/services?pageSize=100')).data.find((s) => s.name === 'web-01');
  const rules = [{ direction: 'in', protocol: 'tcp', port: '80', addresses: ['0.0.0.0/0', '::/0'] }];
  const created = await call('post /api/firewalls', { token, headers: idempotent(), body: { name: 'crawl-web', rules }, expect: 201 });
  await call('post /api/firewalls', { token, body: { name: 'crawl-web' }, expect: 409 });
  await call('post /api/firewalls', { token, body: { name: 'bad', rules: [{ ...rules[0], port: '0' }] }, expect: 400 });
  const id = created.body.id;
  await call('get /api/firewalls', { token });
  await call('get /api/firewalls/{id}', { token, params: { id } });
  await call('patch /api/firewalls/{id}', { token, params: { id }, body: { rules: [...rules, { ...rules[0], port: '443' }] } });
  await call('post /api/firewalls/{id}/apply', { token, params: { id }, body: { serviceIds: [web.id] } });
  await call('post /api/firewalls/{id}/apply', { token, params: { id }, body: { serviceIds: [randomUUID()] }, expect: 404 });
  await call('get /api/services/{id}', { token, params: { id: web.id } });
  await call('delete /api/firewalls/{id}', { token, params: { id }, expect: 409 });
  await call('post /api/firewalls/{id}/remove', { token, params: { id }, body: { serviceIds: [web.id] } });
  await call('delete /api/firewalls/{id}', { token, params: { id }, expect: 204 });
  await call('get /api/firewalls/{id}', { token, params: { id }, expect: 404 });
}

/** A zone with its records, the zone file both ways, and the PTR of web-01's address (DNS on the simulator). */
async function dns({ call, direct, token }) {
  const zones = '/api/dns/zones';
  const created = await call(`post ${zones}`, { token, headers: idempotent(), body: { name: 'crawl.example.org' }, expect: 201 });
  await call(`post ${zones}`, { token, body: { name: 'crawl.example.org' }, expect: 409 });
  await call(`post ${zones}`, { token, body: { name: 'co.uk' }, expect: 400 });
  const params = { id: created.body.id };
  await call(`get ${zones}`, { token });
  await call(`get ${zones}/{id}`, { token, params });
  const record = await call(`post ${zones}/{id}/records`, {
    token,
    params,
    headers: idempotent(),
    body: { name: '@', type: 'MX', value: 'mail.crawl.example.org', priority: 10 },
    expect: 201,
  });
  await call(`post ${zones}/{id}/records`, { token, params, body: { name: '@', type: 'CNAME', value: 'x.example.org' }, expect: 400 });
  await call(`get ${zones}/{id}/records`, { token, params });
  const recordParams = { ...params, recordId: record.body.id };
  await call(`get ${zones}/{id}/records/{recordId}`, { token, params: recordParams });
  await call(`patch ${zones}/{id}/records/{recordId}`, { token, params: recordParams, body: { priority: 20 } });
  await call(`delete ${zones}/{id}/records/{recordId}`, { token, params: recordParams, expect: 204 });
  await call(`get ${zones}/{id}/records/{recordId}`, { token, params: recordParams, expect: 404 });
  await call(`get ${zones}/{id}/export`, { token, params });
  const file = 'www 300 IN A 203.0.113.10\n@ 300 IN TXT "v=spf1 -all"\n';
  await call(`post ${zones}/{id}/import`, { token, params, headers: { 'Content-Type': 'text/plain' }, body: file });
  await call(`post ${zones}/{id}/import`, {
    token,
    params,
    headers: { 'Content-Type': 'text/plain' },
    body: 'www IN PTR x.\n',
    expect: 400,
  });
  await call(`delete ${zones}/{id}`, { token, params, expect: 204 });
  await call(`get ${zones}/{id}`, { token, params, expect: 404 });
  const web = (await direct('/api/services?pageSize=100')).data.find((s) => s.name === 'web-01');
  const rdns = (body, expect = 200) => call('put /api/services/{id}/instance/rdns', { token, params: { id: web.id }, body, expect });
  await rdns({ ip: web.instance.ipv4, ptr: 'web.crawl.example.org' });
  await rdns({ ip: '192.0.2.254', ptr: 'web.crawl.example.org' }, 400);
  await rdns({ ip: web.instance.ipv4, ptr: null });
}

async function support({ call, token }, api) {
  const file = Buffer.from('crawl log line\n');
  const presign = await call('post /api/support/tickets/attachments/presign', {
    token,
    body: { files: [{ filename: 'crawl.log', contentType: 'text/plain', size: file.length }] },
  });
  await call('post /api/support/tickets/attachments/presign', { token, body: { files: [] }, expect: 400 });
  const [upload] = presign.body.uploads;
  // The upload URL is the blob store's (here the API itself), not an operation of the document.
  const headers = Object.fromEntries(Object.entries(upload.headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
  const put = await fetch(upload.url.replace(/^https?:\/\/[^/]+/, api), { method: 'PUT', headers, body: file });
  if (put.status !== 204) throw new Error(`upload answered ${put.status}`);

  const created = await call('post /api/support/tickets', {
    token,
    body: { subject: 'Disk full', message: 'Please have a look.', attachmentIds: [upload.attachmentId] },
  });
  await call('post /api/support/tickets', { token, body: { subject: '', message: 'x' }, expect: 400 });
  const id = created.body.id;
  await call('get /api/support/tickets', { token });
  await call('get /api/support/tickets', { token, query: { status: 'open' } });
  await call('post /api/support/tickets/{id}/reply', { token, params: { id }, body: { message: 'More detail.' }, expect: 201 });
  await call('get /api/support/tickets/{id}', { token, params: { id } });
  await call('post /api/support/tickets/{id}/close', { token, params: { id } });
  await call('post /api/support/tickets/{id}/reply', { token, params: { id }, body: { message: 'Too late.' }, expect: 409 });
  await call('get /api/support/tickets/{id}', { token, params: { id: randomUUID() }, expect: 404 });
}

async function notifications({ call, direct, token, report }) {
  // Actions and the API key above made notifications about an entity; the demo's have none.
  await until(
    () => direct('/api/notifications?pageSize=100'),
    (page) => page.data.some((n) => n.entity),
    'a notification with an entity',
  );
  const all = (await call('get /api/notifications', { token, query: { pageSize: 100 } })).body.data;
  const withEntity = all.find((n) => n.entity);
  const withoutEntity = all.find((n) => n.entity === null);
  if (!withoutEntity) report.unexpected.push('no notification without an entity');
  for (const n of [withEntity, withoutEntity].filter(Boolean)) await call('get /api/notifications/{id}', { token, params: { id: n.id } });
  await call('get /api/notifications', { token, query: { unread: 'true' } });
  await call('get /api/notifications', { token, query: { unread: 'maybe' }, expect: 400 });
  await call('get /api/notifications/unread-count', { token });
  await call('post /api/notifications/{id}/read', { token, params: { id: withEntity.id } });
  await call('post /api/notifications/read-all', { token });
  await call('post /api/notifications/read-all', { token, headers: { 'Idempotency-Key': 'not a valid key' }, expect: 400 });
  await call('get /api/notifications/{id}', { token, params: { id: randomUUID() }, expect: 404 });
}

async function events({ call, token, report }) {
  // The SSH keys, tickets and actions above were recorded in the account's activity log.
  const all = (await call('get /api/events', { token, query: { pageSize: 100 } })).body.data;
  const withEntity = all.find((e) => e.entity);
  if (!withEntity) report.unexpected.push('no activity entry with an entity');
  await call('get /api/events/{id}', { token, params: { id: (withEntity ?? all[0]).id } });
  await call('get /api/events', { token, query: { action: 'ssh_key.create', since: '2020-01-01T00:00:00.000Z' } });
  if (withEntity) await call('get /api/events', { token, query: { entityType: withEntity.entity.type, entityId: withEntity.entity.id } });
  await call('get /api/events', { token, query: { since: 'yesterday' }, expect: 400 });
  await call('get /api/events/{id}', { token, params: { id: randomUUID() }, expect: 404 });
  await call('get /api/events', { expect: 401 });
}

/** The token of the newest link to `path` in the mail the embedded outbox holds for `to`. */
async function mailedToken(outbox, to, path) {
  const pattern = new RegExp(`${path}\\?token=([^\\s"<&]+)`);
  const read = () =>
    readdirSync(outbox, { withFileTypes: true })
      .filter((f) => f.name.endsWith('.eml'))
      .sort((a, b) => a.name.localeCompare(b.name)) // names begin with the time written
      .map((f) =>
        readFileSync(join(outbox, f.name), 'utf8')
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
      )
      .filter((eml) => eml.includes(to) && pattern.test(eml));
  const mails = await until(
    () => {
      try {
        return read();
      } catch {
        return [];
      }
    },
    (found) => found.length > 0,
    `a mail to ${to} with ${path}`,
  );
  return decodeURIComponent(mails[mails.length - 1].match(pattern)[1]);
}

function mailCount(outbox, to) {
  return readdirSync(outbox).filter((name) => name.endsWith('.eml') && readFileSync(join(outbox, name), 'utf8').includes(to)).length;
}

/** Sessions, email verification, two-factor sign-in and password reset (mail from DATA_DIR/outbox). */
async function accountSecurity({ call }, outbox) {
  const { generate } = await import('otplib');
  const email = `crawl-account-${randomUUID()}@example.com`;
  const password = 'correct horse battery';
  const registered = await call('post /api/auth/register', { body: { email, password, name: 'Crawl Account' }, expect: 201 });
  const bearer = `Bearer ${registered.body.accessToken}`;

  await mailedToken(outbox, email, '/confirm-email'); // registration's link, which the resend replaces
  await call('post /api/auth/email/resend', { token: bearer, expect: 204 });
  await until(
    () => mailCount(outbox, email),
    (n) => n >= 2,
    'the resent verification mail',
  );
  await call('post /api/auth/email/verify', { body: { token: await mailedToken(outbox, email, '/confirm-email') }, expect: 204 });
  await call('post /api/auth/email/verify', { body: { token: 'not-a-token' }, expect: 400 });
  await call('patch /api/auth/me', { token: bearer, body: { name: 'Crawl Renamed' } });

  const second = await call('post /api/auth/login', { body: { email, password } });
  const sessions = (await call('get /api/auth/sessions', { token: bearer })).body.data;
  const other = sessions.find((s) => !s.current);
  await call('delete /api/auth/sessions/{id}', { token: bearer, params: { id: other.id }, expect: 204 });
  await call('delete /api/auth/sessions/{id}', { token: bearer, params: { id: randomUUID() }, expect: 404 });
  await call('delete /api/auth/sessions', { token: bearer, expect: 204 });
  await call('get /api/auth/sessions', { token: `Bearer ${second.body.accessToken}`, expect: 401 });

  const setup = await call('post /api/auth/2fa/setup', { token: bearer });
  const code = await generate({ secret: setup.body.secret, epoch: Math.floor(Date.now() / 1000) });
  const enabled = await call('post /api/auth/2fa/enable', { token: bearer, body: { password, code } });
  const challenge = await call('post /api/auth/login', { body: { email, password } });
  await call('post /api/auth/login/2fa', { body: { mfaToken: challenge.body.mfaToken, recoveryCode: enabled.body.recoveryCodes[0] } });
  await call('post /api/auth/2fa/disable', { token: bearer, body: { password, code: enabled.body.recoveryCodes[1] }, expect: 204 });

  await call('post /api/auth/password/forgot', { body: { email }, expect: 202 });
  const newPassword = `${password} renewed`;
  await call('post /api/auth/password/reset', {
    body: { token: await mailedToken(outbox, email, '/reset-password'), newPassword },
    expect: 204,
  });
  await call('get /api/auth/me', { token: bearer, expect: 401 }); // a reset ends every session
}

/** The demo owner invites a new login, which registers, confirms, accepts, switches, is made read-only and leaves. */
async function teams({ call, token }, outbox) {
  const email = `crawl-member-${randomUUID()}@example.com`;
  const password = 'correct horse battery';
  await call('post /api/account/invitations', { token, body: { email, role: 'member' }, expect: 201 });
  await call('post /api/account/invitations', { token, body: { email, role: 'member' }, expect: 409 });
  const spare = await call('post /api/account/invitations', {
    token,
    body: { email: `crawl-spare-${randomUUID()}@example.com`, role: 'read_only' },
    expect: 201,
  });
  await call('get /api/account/invitations', { token });
  await call('delete /api/account/invitations/{id}', { token, params: { id: spare.body.id }, expect: 204 });
  const invitation = await mailedToken(outbox, email, '/accept-invitation');

  const registered = await call('post /api/auth/register', { body: { email, password, name: 'Crawl Member' }, expect: 201 });
  const bearer = `Bearer ${registered.body.accessToken}`;
  await call('post /api/auth/email/verify', { body: { token: await mailedToken(outbox, email, '/confirm-email') }, expect: 204 });
  await call('post /api/auth/invitations/accept', { token: bearer, body: { token: 'hinv_nothing' }, expect: 400 });
  const joined = await call('post /api/auth/invitations/accept', { token: bearer, body: { token: invitation } });
  const switched = await call('post /api/auth/switch-account', { token: bearer, body: { accountId: joined.body.accountId } });
  const asMember = `Bearer ${switched.body.accessToken}`;
  await call('get /api/account/members', { token: asMember });
  await call('patch /api/account/members/{memberId}', {
    token: asMember,
    params: { memberId: joined.body.memberId },
    body: { role: 'admin' },
    expect: 403,
  });
  await call('patch /api/account/members/{memberId}', { token, params: { memberId: joined.body.memberId }, body: { role: 'read_only' } });
  await call('delete /api/account/members/{memberId}', { token: asMember, params: { memberId: joined.body.memberId }, expect: 204 });
  await call('get /api/services', { token: asMember, expect: 403 }); // no_account
}

async function auth({ call }) {
  const email = `crawl-${randomUUID()}@example.com`;
  const password = 'correct horse battery';
  const registered = await call('post /api/auth/register', { body: { email, password, name: 'Crawl' }, expect: 201 });
  await call('post /api/auth/register', { body: { email, password, name: 'Crawl' }, expect: 409 });
  await call('post /api/auth/register', { body: { email: `x${email}`, password: 'short', name: 'Crawl' }, expect: 400 });
  await call('post /api/auth/register', { body: { email: `y${email}`, password, name: 'x'.repeat(1_100_000) }, expect: 413 });

  const refreshed = await call('post /api/auth/refresh', { body: { refreshToken: registered.body.refreshToken } });
  await call('post /api/auth/refresh', { body: { refreshToken: registered.body.refreshToken }, expect: 401 }); // reuse
  await call('get /api/auth/me', { token: `Bearer ${refreshed.body.accessToken}`, expect: 401 }); // its family was revoked

  const session = await call('post /api/auth/login', { body: { email, password } });
  const bearer = `Bearer ${session.body.accessToken}`;
  await call('get /api/auth/me', { token: bearer });
  await call('post /api/auth/password', { token: bearer, body: { currentPassword: password, newPassword: `${password}!` }, expect: 204 });
  await call('post /api/auth/password', { token: bearer, body: { currentPassword: 'wrong', newPassword: `${password}?` }, expect: 400 });
  await call('post /api/auth/logout', { token: bearer, expect: 204 });
  await call('get /api/auth/me', { token: bearer, expect: 401 });

  // The login bucket (RATE_LIMIT_LOGIN_PER_MINUTE, small for the crawl) ends in 429.
  const statuses = [];
  for (let i = 0; i < 20 && !statuses.includes(429); i++) {
    statuses.push(
      (await call('post /api/auth/login', { body: { email: 'nobody@example.com', password: 'not the password' }, expect: [401, 429] }))
        .status,
    );
  }
}

module.exports = { crawl };

import type { AddressInfo } from 'node:net';
import {
  createHostingClient,
  createInstanceAlert,
  deleteInstanceAlert,
  HostingApiError,
  HostingClient,
  instanceMetrics,
  listAll,
  MetricPoint,
  metricUnit,
  Schemas,
  unwrap,
  waitForAction,
} from '../../sdk/src';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/**
 * A customer's automation, end to end through the SDK (sdk/) against the running API: every call
 * below goes over HTTP through the generated types, so a change of the document that breaks a
 * client breaks this file at compile time. The steps share one account and run in order.
 */
describe('SDK: a customer scenario through the typed client', () => {
  let t: TestApp;
  let baseUrl: string;
  let account: TestAccount;
  let api: HostingClient;
  let key: Schemas['CreatedApiKeyResponse'];
  let vps: Schemas['ServiceResponse'];
  let ticket: Schemas['TicketWithMessagesResponse'];
  const log = Buffer.from('kernel: eth0 link down\nkernel: eth0 link up\n');

  beforeAll(async () => {
    // A short simulated power transition, so that waitForAction really polls a running action.
    t = await startTestApp({ COMPUTE_TRANSITION_DELAY_MS: '300' });
    baseUrl = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    account = await createAccount(t);
    // What billing would have provisioned for the customer: two VPS and an object storage bucket.
    vps = await createService(t, account.id, { type: 'vps', name: 'web-1' });
    await createService(t, account.id, { type: 'vps', name: 'web-2' });
    await createService(t, account.id, { type: 'object_storage', name: 'backups' });
  });
  afterAll(() => t.close());

  it('creates an API key with an access token and switches to it', async () => {
    const session = createHostingClient({ baseUrl, token: account.accessToken });
    key = await unwrap(session.POST('/api/auth/api-keys', { body: { name: 'automation', scopes: ['read', 'write'] } }));
    expect(key).toMatchObject({ name: 'automation', scopes: ['read', 'write'], key: expect.stringMatching(/^hpk_/) });

    api = createHostingClient({ baseUrl, token: key.key });
    const me = await unwrap(api.GET('/api/auth/me'));
    expect(me).toMatchObject({ id: account.id, email: account.email });
    const keys = await listAll(api, '/api/auth/api-keys');
    expect(keys.map((k) => k.id)).toContain(key.id);
    expect(keys.every((k) => !('key' in k))).toBe(true);
  });

  it('lists every service across pages with listAll, and filters', async () => {
    const all = await listAll(api, '/api/services', { pageSize: 2 });
    expect(all.map((s) => s.name).sort()).toEqual(['backups', 'web-1', 'web-2']);
    expect(new Set(all.map((s) => s.id)).size).toBe(3);

    const servers = await listAll(api, '/api/services', { type: 'vps', pageSize: 1 });
    expect(servers.map((s) => s.id).sort()).toEqual(
      all
        .filter((s) => s.type === 'vps')
        .map((s) => s.id)
        .sort(),
    );
    const web1 = servers.find((s) => s.id === vps.id)!;
    expect(web1.instance).toMatchObject({ powerState: 'running' });
  });

  it('stops the VPS and waits for the action, then starts it again', async () => {
    const path = { id: vps.id };
    const stop = await unwrap(api.POST('/api/services/{id}/instance/stop', { params: { path } }));
    expect(stop).toMatchObject({ serviceId: vps.id, type: 'stop', status: 'running' });
    const stopped = await waitForAction(api, vps.id, stop.id, { timeoutMs: 30_000, intervalMs: 50 });
    expect(stopped).toMatchObject({ id: stop.id, status: 'succeeded', error: null, finishedAt: expect.any(String) });
    expect((await unwrap(api.GET('/api/services/{id}', { params: { path } }))).instance?.powerState).toBe('stopped');

    const start = await unwrap(api.POST('/api/services/{id}/instance/start', { params: { path } }));
    const started = await waitForAction(api, vps.id, start.id, { timeoutMs: 30_000, intervalMs: 50 });
    expect(started.status).toBe('succeeded');
    expect((await unwrap(api.GET('/api/services/{id}', { params: { path } }))).instance?.powerState).toBe('running');

    const actions = await listAll(api, '/api/services/{id}/instance/actions', undefined, path);
    expect(actions.map((a) => a.id)).toEqual([start.id, stop.id]);
  });

  it("reads the VPS's graphs with typed series, and a bad range as a HostingApiError", async () => {
    const metrics = await instanceMetrics(api, vps.id, { type: 'cpu,disk', step: 60 });
    expect(metrics.step).toBe(60);
    const cpu: MetricPoint[] = metrics.series.cpu!;
    expect(cpu.length).toBeGreaterThan(50);
    expect(metrics.series['disk.0.iops.read']!.length).toBe(cpu.length);
    expect(Object.keys(metrics.series).map(metricUnit).sort()).toEqual(['%', 'B/s', 'B/s', 'op/s', 'op/s']);
    const refused = await instanceMetrics(api, vps.id, { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' }).catch((e) => e);
    expect(refused).toBeInstanceOf(HostingApiError);
    expect(refused).toMatchObject({ status: 400, problem: { code: 'invalid_input' } });
  });

  it("keeps the VPS's metric alerts: create, list, delete, and a bad threshold as a HostingApiError", async () => {
    const alert = await createInstanceAlert(api, vps.id, { type: 'cpu', above: 90, forMinutes: 5 });
    expect(alert).toMatchObject({ serviceId: vps.id, type: 'cpu', above: 90, forMinutes: 5, state: 'ok' });
    expect((await listAll(api, '/api/services/{id}/instance/alerts', undefined, { id: vps.id })).map((a) => a.id)).toEqual([alert.id]);
    await deleteInstanceAlert(api, vps.id, alert.id);
    expect(await listAll(api, '/api/services/{id}/instance/alerts', undefined, { id: vps.id })).toEqual([]);
    const refused = await createInstanceAlert(api, vps.id, { type: 'cpu', above: 101, forMinutes: 5 }).catch((e) => e);
    expect(refused).toMatchObject({ status: 400, problem: { code: 'invalid_input' } });
  });

  it('reports an error answer as a HostingApiError with the problem body', async () => {
    const again = api.POST('/api/services/{id}/instance/start', { params: { path: { id: vps.id } } });
    const error = await failure(unwrap(again));
    expect(error).toBeInstanceOf(HostingApiError);
    expect(error).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(error.problem).toEqual({
      type: expect.any(String),
      title: expect.any(String),
      status: 409,
      detail: expect.any(String),
      code: 'invalid_state',
      requestId: expect.any(String),
    });
    expect(error.requestId).toBe(error.response.headers.get('x-request-id'));

    const invalid = await failure(unwrap(api.GET('/api/services', { params: { query: { pageSize: 101 } } })));
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_input' });
    expect(invalid.errors.map((e) => e.field)).toContain('pageSize');
  });

  it('opens a support ticket with an attachment uploaded to a presigned URL', async () => {
    const { uploads } = await unwrap(
      api.POST('/api/support/tickets/attachments/presign', {
        body: { files: [{ filename: 'dmesg.log', contentType: 'text/plain', size: log.length }] },
      }),
    );
    expect(uploads).toHaveLength(1);
    const [upload] = uploads;
    expect(upload.method).toBe('PUT');
    // The URL is built from PUBLIC_URL; the test app listens elsewhere.
    const put = await fetch(onTestApp(upload.url), { method: 'PUT', headers: withoutContentLength(upload.headers), body: log });
    expect(put.status).toBe(204);

    ticket = await unwrap(
      api.POST('/api/support/tickets', {
        body: {
          subject: 'web-1 lost its network',
          message: 'eth0 went down at 10:02, log attached.',
          department: 'technical',
          serviceId: vps.id,
          attachmentIds: [upload.attachmentId],
        },
      }),
    );
    expect(ticket).toMatchObject({
      subject: 'web-1 lost its network',
      status: 'open',
      department: 'technical',
      serviceId: vps.id,
      reference: expect.stringMatching(/^T-\d+$/),
    });
    const [first] = ticket.messages;
    expect(first.attachments).toEqual([
      expect.objectContaining({ id: upload.attachmentId, filename: 'dmesg.log', contentType: 'text/plain', size: log.length }),
    ]);

    const download = await fetch(onTestApp(first.attachments[0].downloadUrl));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(log);

    const tickets = await listAll(api, '/api/support/tickets', { status: 'open' });
    expect(tickets.map((x) => x.id)).toContain(ticket.id);
  });

  it('reads notifications: the list, the unread count, read-all', async () => {
    // Notifications are made after the emitting transaction commits: wait (bounded) for both actions'.
    const notifications = await waitFor(
      () => listAll(api, '/api/notifications'),
      (list) => countOf(list, 'instance_action_succeeded') >= 2,
      10_000,
    );
    expect(countOf(notifications, 'instance_action_succeeded')).toBe(2);
    expect(notifications).toContainEqual(expect.objectContaining({ type: 'api_key_created', entity: { type: 'api_key', id: key.id } }));
    expect(notifications.filter((n) => n.type === 'instance_action_succeeded').every((n) => n.entity?.id === vps.id)).toBe(true);

    const unread = await unwrap(api.GET('/api/notifications/unread-count'));
    expect(unread.count).toBe(notifications.filter((n) => n.readAt === null).length);
    expect(unread.count).toBeGreaterThanOrEqual(3);

    const readAll = await unwrap(api.POST('/api/notifications/read-all'));
    expect(readAll.updated).toBe(unread.count);
    expect((await unwrap(api.GET('/api/notifications/unread-count'))).count).toBe(0);
    expect(await listAll(api, '/api/notifications', { unread: 'true' })).toEqual([]);
  });

  it('closes the ticket and revokes the key; the revoked key is refused', async () => {
    const closed = await unwrap(api.POST('/api/support/tickets/{id}/close', { params: { path: { id: ticket.id } } }));
    expect(closed).toMatchObject({ id: ticket.id, status: 'closed', closedAt: expect.any(String) });

    const revoke = await api.DELETE('/api/auth/api-keys/{id}', { params: { path: { id: key.id } } });
    expect(revoke.response.status).toBe(204);
    const refused = await failure(unwrap(api.GET('/api/services')));
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  function onTestApp(url: string): string {
    const target = new URL(url);
    return `${baseUrl}${target.pathname}${target.search}`;
  }
});

/** fetch computes Content-Length from the body (equal to the declared size); it may not be set by hand. */
function withoutContentLength(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
}

/** The HostingApiError a call failed with (fails the test if it succeeded or failed otherwise). */
async function failure(call: Promise<unknown>): Promise<HostingApiError> {
  const outcome = await call.then(
    (data) => ({ data }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected an error answer, got ${JSON.stringify(outcome.data)}`);
  if (!(outcome.error instanceof HostingApiError)) throw outcome.error;
  return outcome.error;
}

function countOf(notifications: { type: string }[], type: string): number {
  return notifications.filter((n) => n.type === type).length;
}

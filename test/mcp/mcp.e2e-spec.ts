import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { ApiKeysService } from '@app/api-keys';
import { MCP_TOOLS } from '@hosting-account/mcp';
import { McpSessions } from '../../libs/mcp/src/mcp-sessions';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { fenced, MCP_PROTOCOL_VERSION, openRawMcpSession } from '../support/mcp-session';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

const READ_TOOLS = MCP_TOOLS.filter((tool) => tool.scope === 'read').map((tool) => tool.name);
const INSPECTOR = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');

/**
 * The MCP server at /mcp (Streamable HTTP) with the MCP SDK's own client, against the whole app:
 * every tool call is a loopback request with the caller's credential, so scopes, ownership and the
 * activity log hold as for any other client.
 */
describe('MCP server at /mcp', () => {
  let t: TestApp;
  let url: string;
  let owner: TestAccount;
  let stranger: TestAccount;
  let vpsId: string;
  const clients: Client[] = [];

  async function connect(bearer: string, name = 'jest-agent', headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name, version: '1.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: bearer, ...headers } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const errorOf = (result: CallToolResult) => {
    expect(result.isError).toBe(true);
    return JSON.parse((result.content[1] as { text: string }).text).error;
  };

  beforeAll(async () => {
    // TRUST_PROXY=loopback: the test's requests name their client address with X-Forwarded-For.
    t = await startTestApp({
      COMPUTE_TRANSITION_DELAY_MS: '200',
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_TICKET_CREATE_PER_MINUTE: '2',
      CORS_ORIGINS: 'https://dashboard.example',
    });
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    owner = await createAccount(t);
    stranger = await createAccount(t);
    vpsId = (await createService(t, owner.id, { type: 'vps', name: 'web-1', powerState: 'running' })).id;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t.close();
  });

  it('refuses a request without a bearer token with 401, as every route; a browser client may read the session id', async () => {
    await request(t.http)
      .post('/mcp')
      .set('Origin', 'https://dashboard.example')
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      })
      .expect(401)
      .expect('Access-Control-Expose-Headers', /Mcp-Session-Id/);
  });

  it('lists only the read tools for a read-only key, and names the missing scope when it calls a write tool', async () => {
    const readOnly = await createAccount(t, { scopes: ['read'] });
    const client = await connect(readOnly.keyBearer);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);

    const refused = await call(client, 'vps_reboot', { serviceId: vpsId });
    expect(errorOf(refused)).toMatchObject({ code: 'insufficient_scope', detail: expect.stringContaining('"write" scope') });
  });

  it('lists every tool for a read-write key, each with input and output schemas and the hints', async () => {
    const client = await connect(owner.keyBearer);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(MCP_TOOLS.map((tool) => tool.name));
    for (const tool of tools) {
      expect({ name: tool.name, input: tool.inputSchema.type, output: tool.outputSchema?.type }).toEqual({
        name: tool.name,
        input: 'object',
        output: 'object',
      });
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
    }
    const reboot = tools.find((tool) => tool.name === 'vps_reboot')!;
    expect(reboot.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(tools.map((tool) => tool.name)).not.toContain('vps_console');
  });

  it("lists the account's services, and answers another account's id with the API's not_found, not its data", async () => {
    const theirs = await createService(t, stranger.id, { type: 'vps', name: 'not-yours' });
    const client = await connect(owner.keyBearer);
    const list = await call(client, 'services_list', { type: 'vps' });
    expect(list.isError).toBeFalsy();
    expect((list.structuredContent as { data: { id: string }[] }).data.map((s) => s.id)).toEqual([vpsId]);

    for (const [tool, args] of [
      ['service_get', { serviceId: theirs.id }],
      ['vps_actions_list', { serviceId: theirs.id }],
      ['vps_reboot', { serviceId: theirs.id }],
    ] as const) {
      const result = await call(client, tool, args);
      expect({ tool, error: errorOf(result) }).toEqual({ tool, error: expect.objectContaining({ status: 404, code: 'not_found' }) });
      expect(JSON.stringify(result)).not.toContain('not-yours');
    }
    expect((await t.get(`/api/services/${theirs.id}/instance/actions`, stranger.bearer).expect(200)).body.total).toBe(0);
  });

  it('reboots a VPS and waits for it, with progress notifications, and shows the action in the history', async () => {
    const client = await connect(owner.bearer);
    const progress: Progress[] = [];
    const result = (await client.callTool({ name: 'vps_reboot', arguments: { serviceId: vpsId } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ serviceId: vpsId, type: 'reboot', status: 'succeeded' });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_p, i) => i + 1));
    expect(progress.at(-1)!.message).toContain('reboot');
    expect(progress.at(-1)!.message).toContain('succeeded');

    const history = await call(client, 'vps_actions_list', { serviceId: vpsId });
    expect((history.structuredContent as { data: { id: string }[] }).data[0].id).toBe((result.structuredContent as { id: string }).id);
  });

  it('rebuilds a VPS from an image the images tool lists, and waits for it', async () => {
    const { slug } = await createImage(t);
    const client = await connect(owner.keyBearer);
    const images = (await call(client, 'images_list', { pageSize: 100 })).structuredContent as { data: { slug: string }[] };
    expect(images.data.map((image) => image.slug)).toContain(slug);
    const rebuilt = await call(client, 'vps_rebuild', { serviceId: vpsId, image: slug });
    expect(rebuilt.structuredContent).toMatchObject({ serviceId: vpsId, type: 'rebuild', status: 'succeeded' });
  });

  it('snapshots a VPS and waits for it, lists the snapshot with the images, and deletes it', async () => {
    const client = await connect(owner.keyBearer);
    const made = await call(client, 'vps_snapshot', { serviceId: vpsId, name: 'from mcp' });
    expect(made.structuredContent).toMatchObject({
      serviceId: vpsId,
      type: 'snapshot',
      status: 'succeeded',
      snapshot: { consistency: 'crash' },
    });
    const imageId = (made.structuredContent as { snapshot: { imageId: string } }).snapshot.imageId;
    const images = (await call(client, 'images_list', { pageSize: 100 })).structuredContent as { data: { id: string; type: string }[] };
    expect(images.data.find((image) => image.id === imageId)).toMatchObject({
      type: 'snapshot',
      name: fenced('from mcp'),
      status: 'available',
    });
    expect((await call(client, 'snapshot_delete', { imageId })).structuredContent).toEqual({ id: imageId, deleted: true });
    await t.get(`/api/images/${imageId}`, owner.bearer).expect(404);
  });

  it('lists the backups of a VPS and restores one, waiting for it', async () => {
    const { backupId } = (await t.app.get(BackupRunner).run(vpsId, 'operator')) as { backupId: string };
    const client = await connect(owner.keyBearer);
    const listed = (await call(client, 'vps_backups_list', { serviceId: vpsId })).structuredContent as { data: { id: string }[] };
    expect(listed.data[0]).toMatchObject({ id: backupId, status: 'available', consistency: 'crash' });
    const restored = await call(client, 'vps_backup_restore', { serviceId: vpsId, backupId });
    expect(restored.structuredContent).toMatchObject({ serviceId: vpsId, type: 'restore', status: 'succeeded' });
    const strangers = await connect(stranger.keyBearer);
    expect(errorOf(await call(strangers, 'vps_backups_list', { serviceId: vpsId }))).toMatchObject({ code: 'not_found' });
  });

  it('boots a VPS into rescue and back, showing the rescue password once; resets a root password (issue 39)', async () => {
    await createImage(t, { rescue: true });
    const client = await connect(owner.keyBearer);
    const rescued = await call(client, 'vps_rescue', { serviceId: vpsId });
    expect(rescued.isError).toBeFalsy();
    expect(rescued.structuredContent).toMatchObject({
      serviceId: vpsId,
      type: 'rescue',
      status: 'succeeded',
      rootPassword: expect.stringMatching(/^[A-HJ-NP-Za-km-z2-9]{20}$/),
    });
    expect((await t.get(`/api/services/${vpsId}`, owner.bearer).expect(200)).body.instance.rescue).toBe(true);
    // In rescue, the VPS's own root is not reachable: the API's 409 is the tool's error.
    expect(errorOf(await call(client, 'vps_reset_password', { serviceId: vpsId }))).toMatchObject({ code: 'invalid_state' });
    const back = await call(client, 'vps_unrescue', { serviceId: vpsId });
    expect(back.structuredContent).toMatchObject({ type: 'unrescue', status: 'succeeded' });
    await waitForOrFail(
      async () => (await t.get(`/api/services/${vpsId}`, owner.bearer).expect(200)).body.instance.rescue,
      (rescue) => rescue === false,
      10_000,
      () => 'the VPS stayed in rescue',
    );
    const reset = await call(client, 'vps_reset_password', { serviceId: vpsId });
    expect(reset.structuredContent).toEqual({ rootPassword: expect.stringMatching(/^[A-HJ-NP-Za-km-z2-9]{20}$/) });
    expect(errorOf(await call(await connect(stranger.keyBearer), 'vps_rescue', { serviceId: vpsId }))).toMatchObject({ code: 'not_found' });
  });

  it('opens, answers and closes a support ticket', async () => {
    const client = await connect(owner.keyBearer);
    const created = await call(client, 'ticket_create', {
      subject: 'web-1 is slow',
      message: 'Load is high since 09:00.',
      department: 'technical',
      serviceId: vpsId,
    });
    expect(created.isError).toBeFalsy();
    const ticket = created.structuredContent as { id: string; subject: string; messages: unknown[] };
    expect(ticket).toMatchObject({ subject: fenced('web-1 is slow'), status: 'open', serviceId: vpsId });
    expect((await call(client, 'ticket_reply', { ticketId: ticket.id, message: 'Still slow.' })).isError).toBeFalsy();
    expect((await call(client, 'ticket_close', { ticketId: ticket.id })).structuredContent).toMatchObject({ status: 'closed' });
    const seen = (await t.get(`/api/support/tickets/${ticket.id}`, owner.bearer).expect(200)).body;
    expect(seen.messages.map((m: { message: string }) => m.message)).toEqual(['Load is high since 09:00.', 'Still slow.']);
    const invalid = await call(client, 'ticket_create', { subject: '', message: 'x' });
    expect(invalid.isError).toBe(true);
    expect((invalid.content[0] as { text: string }).text).toMatch(/Input validation error[\s\S]*subject/);
  });

  it('answers a 429 with a tool error that says when to retry', async () => {
    const client = await connect(owner.keyBearer);
    const second = await call(client, 'ticket_create', { subject: 'again', message: 'second ticket this minute' });
    expect(second.isError).toBeFalsy();
    const third = await call(client, 'ticket_create', { subject: 'and again', message: 'third ticket this minute' });
    const error = errorOf(third);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    expect((third.content[0] as { text: string }).text).toMatch(/^rate_limited: .* Retry after \d+ s\.$/);
  });

  it("records every call in the activity log with mcp and the assistant's name in the user agent, from the client's address", async () => {
    const client = await connect(owner.keyBearer, 'claude-desktop', { 'X-Forwarded-For': '203.0.113.7' });
    const started = await call(client, 'vps_stop', { serviceId: vpsId, wait: false });
    expect(started.structuredContent).toMatchObject({ type: 'stop', status: 'running' });
    const entries = (await t.get(`/api/events?action=instance.stop`, owner.bearer).expect(200)).body.data;
    expect(entries[0]).toMatchObject({
      action: 'instance.stop',
      actor: { type: 'api_key', name: 'test key' },
      ip: '203.0.113.7',
      userAgent: expect.stringMatching(/^hosting-account-mcp\/\S+ \(claude-desktop\/1\.0\)$/),
    });
    const reboots = (await t.get(`/api/events?action=instance.reboot`, owner.bearer).expect(200)).body.data;
    expect(reboots[0].userAgent).toContain('(jest-agent/1.0)');
    const tickets = (await t.get(`/api/events?action=ticket.create`, owner.bearer).expect(200)).body.data;
    expect(tickets[0].userAgent).toMatch(/^hosting-account-mcp\//);
  });

  it("ignores a client's own relay headers: a forged address never reaches the activity log", async () => {
    await request(t.http)
      .post('/api/ssh-keys')
      .set('Authorization', owner.keyBearer)
      .set('X-Forwarded-For', '198.51.100.20')
      .set('X-Hosting-Relay', 'guess')
      .set('X-Hosting-Relay-For', '192.0.2.99')
      .send({ name: 'laptop', publicKey: readFileSync(join(__dirname, '../fixtures/ssh/ed25519.pub'), 'utf8').trim() })
      .expect(201);
    const [entry] = (await t.get('/api/events?action=ssh_key.create', owner.bearer).expect(200)).body.data;
    expect(entry.ip).toBe('198.51.100.20');
  });

  it('passes the MCP inspector (CLI mode) for tools, resources and prompts', async () => {
    const inspect = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [INSPECTOR, `${url}/mcp`, '--transport', 'http', '--header', `Authorization: ${owner.keyBearer}`, ...args],
        // Its build looks for its package.json relative to the working directory (inspector-cli 1.0.3).
        { env: { PATH: process.env.PATH }, cwd: dirname(INSPECTOR) },
      );
      return JSON.parse(stdout);
    };
    expect((await inspect('--method', 'tools/list')).tools).toHaveLength(MCP_TOOLS.length);
    const listed = await inspect('--method', 'tools/call', '--tool-name', 'services_list', '--tool-arg', 'type=vps');
    expect(listed.structuredContent.data.map((s: { id: string }) => s.id)).toEqual([vpsId]);
    expect((await inspect('--method', 'resources/list')).resources).toHaveLength(2);
    const summary = await inspect('--method', 'resources/read', '--uri', 'hosting://account/summary');
    expect(JSON.parse(summary.contents[0].text).account.id).toBe(owner.id);
    expect((await inspect('--method', 'prompts/list')).prompts).toHaveLength(2);
  });

  it("ends the session when its key is revoked (its stream closes), and refuses another credential's session id", async () => {
    const account = await createAccount(t);
    const keys = t.app.get(ApiKeysService);
    const doomed = await keys.create(account.id, { name: 'assistant' });
    const other = await keys.create(account.id, { name: 'other assistant' });
    const sessions = t.app.get(McpSessions);
    const survivor = await connect(`Bearer ${other.key}`);
    expect(sessions.count(account.id)).toBe(1);

    const session = await openRawMcpSession(url, `Bearer ${doomed.key}`);
    const hijack = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...session.headers, Authorization: `Bearer ${other.key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    await hijack.text();

    const stream = await session.openStream();
    expect(stream.status).toBe(200);
    expect(sessions.count(account.id)).toBe(2);

    await request(t.http).delete(`/api/auth/api-keys/${doomed.id}`).set('Authorization', account.bearer).expect(204);
    await stream.ended;
    await waitForOrFail(
      async () => sessions.count(account.id),
      (n) => n === 1,
      5000,
      (n) => `${n} sessions`,
    );
    expect((await call(survivor, 'services_list')).isError).toBeFalsy();
  });
});

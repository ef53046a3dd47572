import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { MCP_TOOLS } from '@hosting-account/mcp';
import { createAccount, TestAccount } from '../factories/accounts';
import { sshKeyPair } from '../factories/images';
import { createService } from '../factories/services';
import { HOSTCTL } from '../support/hostctl';
import { fenced } from '../support/mcp-session';
import { linkToken, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';

const READ_TOOLS = MCP_TOOLS.filter((tool) => tool.scope === 'read').map((tool) => tool.name);

/**
 * Members and invitations in the MCP server (issue 56, point 6): read tools only, and the role of
 * the member whose credential opened the session holds for every tool: a read_only member reads the
 * team; the hosted /mcp does not offer it the tools that change something, and over stdio (hostctl
 * mcp, which knows no role) the API's guard answers such a call with insufficient_role.
 */
describe('MCP: members and invitations, and a read_only member', () => {
  let t: TestApp;
  const smtp = new TestSmtpServer();
  let url: string;
  let owner: TestAccount;
  let reader: TestAccount;
  /** The reader's access token, switched to the owner's account. */
  let readerBearer: string;
  let readerMemberId: string;
  let vpsId: string;
  let home: string;
  const clients: Client[] = [];

  async function connect(bearer: string): Promise<Client> {
    const client = new Client({ name: 'jest-agent', version: '1.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: bearer } } }));
    clients.push(client);
    return client;
  }
  /** `hostctl mcp` as a desktop assistant starts it, with HOSTCTL_URL and HOSTCTL_TOKEN. */
  async function stdioClient(token: string): Promise<Client> {
    const client = new Client({ name: 'claude-desktop', version: '0.9' });
    const env = { PATH: process.env.PATH!, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), HOSTCTL_URL: url, HOSTCTL_TOKEN: token };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [HOSTCTL, 'mcp'], env, stderr: 'pipe' }));
    clients.push(client);
    return client;
  }
  const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const ok = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = await call(client, name, args);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, any>;
  };
  const errorOf = (result: CallToolResult) => {
    expect(result.isError).toBe(true);
    return JSON.parse((result.content[1] as { text: string }).text).error;
  };

  beforeAll(async () => {
    await smtp.start();
    home = mkdtempSync(join(tmpdir(), 'mcp-members-'));
    t = await startTestApp({ SMTP_URL: smtp.url, COMPUTE_TRANSITION_DELAY_MS: '100' });
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    owner = await createAccount(t);
    reader = await createAccount(t);
    vpsId = (await createService(t, owner.id, { type: 'vps', name: 'web-1', powerState: 'running' })).id;

    await request(t.http)
      .post('/api/account/invitations')
      .set('Authorization', owner.bearer)
      .send({ email: reader.email, role: 'read_only' })
      .expect(201);
    const token = linkToken(await smtp.waitForMail(reader.email, /You are invited/), '/accept-invitation');
    const joined = await request(t.http)
      .post('/api/auth/invitations/accept')
      .set('Authorization', reader.bearer)
      .send({ token })
      .expect(200);
    expect(joined.body).toMatchObject({ accountId: owner.id, role: 'read_only' });
    readerMemberId = joined.body.memberId;
    const switched = await request(t.http)
      .post('/api/auth/switch-account')
      .set('Authorization', reader.bearer)
      .send({ accountId: owner.id })
      .expect(200);
    readerBearer = `Bearer ${switched.body.accessToken}`;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t.close();
    await smtp.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('offers members and invitations to read, and no tool that changes them', () => {
    const team = MCP_TOOLS.filter((tool) => /member|invitation/.test(tool.name));
    expect(team.map((tool) => [tool.name, tool.scope, tool.annotations.readOnlyHint])).toEqual([
      ['members_list', 'read', true],
      ['invitations_list', 'read', true],
    ]);
  });

  it("lets a read_only member's session list the members and pending invitations, fenced", async () => {
    const pending = (
      await request(t.http)
        .post('/api/account/invitations')
        .set('Authorization', owner.bearer)
        .send({ email: 'ops@example.test', role: 'member' })
        .expect(201)
    ).body;
    const client = await connect(readerBearer);
    const listed = await ok(client, 'members_list');
    expect(listed).toMatchObject({ total: 2, page: 1 });
    expect(listed.data).toEqual([
      { id: expect.any(String), email: fenced(owner.email), name: fenced('Test User'), role: 'owner', joinedAt: expect.any(String) },
      { id: readerMemberId, email: fenced(reader.email), name: fenced('Test User'), role: 'read_only', joinedAt: expect.any(String) },
    ]);
    const invitations = await ok(client, 'invitations_list');
    expect(invitations.data).toEqual([
      {
        id: pending.id,
        email: fenced('ops@example.test'),
        role: 'member',
        invitedBy: listed.data[0].id,
        createdAt: pending.createdAt,
        expiresAt: pending.expiresAt,
      },
    ]);
  });

  it("hides the tools that change something from a read_only member's hosted session, and names the scope its role leaves", async () => {
    const client = await connect(readerBearer);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
    expect(errorOf(await call(client, 'vps_reboot', { serviceId: 'web-1' }))).toEqual({
      status: 403,
      code: 'insufficient_scope',
      detail:
        'vps_reboot needs the "write" scope; this session has only "read" (an API key\'s scopes, a read_only member\'s role or --read-only limit it).',
    });
    expect((await t.get(`/api/services/${vpsId}/instance/actions`, owner.bearer).expect(200)).body.total).toBe(0);
  });

  it('answers insufficient_role from the API when a read_only member calls a write tool through hostctl mcp; nothing is done', async () => {
    const client = await stdioClient(readerBearer.slice('Bearer '.length));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(MCP_TOOLS.map((tool) => tool.name));
    expect((await ok(client, 'members_list')).data.map((m: { role: string }) => m.role)).toEqual(['owner', 'read_only']);

    for (const [tool, args] of [
      ['vps_reboot', { serviceId: 'web-1' }],
      ['ssh_key_add', { name: 'reader laptop', publicKey: sshKeyPair().publicKey }],
    ] as const) {
      expect({ tool, error: errorOf(await call(client, tool, args)) }).toEqual({
        tool,
        error: expect.objectContaining({
          status: 403,
          code: 'insufficient_role',
          detail: 'This operation needs the "member" role on this account (or a higher one).',
        }),
      });
    }
    expect((await t.get(`/api/services/${vpsId}/instance/actions`, owner.bearer).expect(200)).body.total).toBe(0);
    expect((await t.get('/api/ssh-keys', owner.bearer).expect(200)).body.total).toBe(0);
  });

  it("gives a read_only member's API key the read scope: its session lists the read tools only", async () => {
    const key = (
      await request(t.http).post('/api/auth/api-keys').set('Authorization', readerBearer).send({ name: 'assistant' }).expect(201)
    ).body;
    expect(key.scopes).toEqual(['read']);
    const client = await connect(`Bearer ${key.key}`);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
    expect((await ok(client, 'members_list')).total).toBe(2);
    expect(errorOf(await call(client, 'vps_reboot', { serviceId: vpsId }))).toMatchObject({ code: 'insufficient_scope' });
  });

  it("filters the activity log by member: the owner's session sees what the reader did", async () => {
    const client = await connect(owner.keyBearer);
    const entries = await ok(client, 'activity_list', { actor: readerMemberId });
    expect(entries.data.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['member.join', 'api_key.create']));
    for (const entry of entries.data) {
      expect(entry.actor).toMatchObject({ memberId: readerMemberId, email: fenced(reader.email) });
    }
  });
});

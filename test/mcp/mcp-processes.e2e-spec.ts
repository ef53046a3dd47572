import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOLS, OPENAPI_URI, SUMMARY_URI } from '@hosting-account/mcp';
import request from 'supertest';
import { ApiKeysService } from '@app/api-keys';
import { createAccount, TestAccount } from '../factories/accounts';
import { HOSTCTL } from '../support/hostctl';
import { fenced, openRawMcpSession } from '../support/mcp-session';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';
import { freshDataDir } from '../support/test-database';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * What mcp/README.md's configurations start, against the built server with its demo data: a desktop
 * assistant runs `hostctl mcp` (stdio) with HOSTCTL_URL and HOSTCTL_TOKEN, a hosted client calls
 * /mcp with the bearer token. The assistant lists the services and reboots one, and the reboot is in
 * the activity log.
 */
describe('MCP against the built server: hostctl mcp over stdio, /mcp over HTTP', () => {
  let server: ServerProcess;
  let dataDir: string;
  let home: string;
  let apiKey: string;
  const clients: Client[] = [];

  async function stdioClient(args: string[] = []): Promise<Client> {
    const client = new Client({ name: 'claude-desktop', version: '0.9' });
    const env = {
      PATH: process.env.PATH!,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      HOSTCTL_URL: server.url,
      HOSTCTL_TOKEN: apiKey,
    };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [HOSTCTL, 'mcp', ...args], env, stderr: 'pipe' }));
    clients.push(client);
    return client;
  }

  const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  beforeAll(async () => {
    dataDir = freshDataDir('mcp-api-');
    home = mkdtempSync(join(tmpdir(), 'mcp-home-'));
    // The embedded database on both passes: demo data is made only in an empty database.
    server = await startServerProcess(
      { DATABASE_URL: undefined, DATA_DIR: dataDir, DEMO_DATA: 'true', DOCS_ENABLED: 'true', COMPUTE_TRANSITION_DELAY_MS: '300' },
      { startTimeoutMs: 120_000 },
    );
    apiKey = /API key: +(hpk_\S+)/.exec(server.output())![1];
  }, 150_000);
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('hostctl mcp: lists the services, reboots one with progress, and the reboot is in the activity log as mcp', async () => {
    const client = await stdioClient();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(MCP_TOOLS.map((tool) => tool.name));

    const services = (await call(client, 'services_list', { type: 'vps', status: 'active' })).structuredContent as {
      data: { id: string; name: string; instance: { powerState: string } }[];
    };
    const web = services.data.find((s) => s.name.includes('>web-01<'))!;
    expect(web.instance.powerState).toBe('running');

    const progress: Progress[] = [];
    const reboot = (await client.callTool({ name: 'vps_reboot', arguments: { serviceId: web.id } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(reboot.structuredContent).toMatchObject({ type: 'reboot', status: 'succeeded' });
    expect(progress.length).toBeGreaterThanOrEqual(2);

    const log = (await call(client, 'activity_list', { action: 'instance.reboot', entityId: web.id })).structuredContent as {
      data: { userAgent: string; actor: { type: string; name: string } }[];
    };
    expect(log.data[0]).toMatchObject({
      userAgent: fenced('hostctl/0.1.0 mcp (claude-desktop/0.9)'),
      actor: { type: 'api_key', name: fenced('demo key') },
    });
  });

  it('hostctl mcp: offers the account summary and the OpenAPI document as resources, and the two prompts', async () => {
    const client = await stdioClient(['--read-only']);
    expect((await client.listTools()).tools.every((tool) => tool.annotations?.readOnlyHint)).toBe(true);
    const summary = JSON.parse(((await client.readResource({ uri: SUMMARY_URI })).contents[0] as { text: string }).text);
    expect(summary).toMatchObject({
      account: { email: fenced('demo@example.com') },
      services: { vps: expect.any(Number), objectStorage: expect.any(Number) },
    });
    const document = JSON.parse(((await client.readResource({ uri: OPENAPI_URI })).contents[0] as { text: string }).text);
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).not.toContain('/mcp');
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(['diagnose-slow-vps', 'prepare-support-ticket']);
    const diagnose = await client.getPrompt({ name: 'diagnose-slow-vps', arguments: { serviceId: 'svc-1' } });
    expect((diagnose.messages[0].content as { text: string }).text).toContain('vps_actions_list svc-1');
  });

  it('/mcp on the built server: the same tools for the bearer token, resources included', async () => {
    const client = new Client({ name: 'hosted-agent', version: '1.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
    );
    clients.push(client);
    expect((await client.listTools()).tools).toHaveLength(MCP_TOOLS.length);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([SUMMARY_URI, OPENAPI_URI]);
    const document = JSON.parse(((await client.readResource({ uri: OPENAPI_URI })).contents[0] as { text: string }).text);
    expect(document.info.title).toBe('Hosting account API');
    const tickets = await call(client, 'tickets_list');
    expect(tickets.isError).toBeFalsy();
  });
});

// Several API processes share one database only on PostgreSQL.
(TEST_DATABASE_URL ? describe : describe.skip)('MCP sessions across API processes (PostgreSQL)', () => {
  let app: TestApp;
  let server: ServerProcess;
  let owner: TestAccount;
  beforeAll(async () => {
    [app, server] = await Promise.all([startTestApp(), startServerProcess({})]);
    owner = await createAccount(app);
  });
  afterAll(async () => {
    await server?.stop();
    await app.close();
  });

  it('a key revoked through one process ends its session held by another', async () => {
    const key = await app.app.get(ApiKeysService).create(owner.id, { name: 'assistant' });
    const session = await openRawMcpSession(server.url, `Bearer ${key.key}`);
    const stream = await session.openStream();
    expect(stream.status).toBe(200);
    await request(app.http).delete(`/api/auth/api-keys/${key.id}`).set('Authorization', owner.bearer).expect(204);
    await stream.ended;
    const after = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...session.headers, Authorization: owner.bearer },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });
});

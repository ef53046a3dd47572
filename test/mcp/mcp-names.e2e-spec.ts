import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage, sshKeyPair } from '../factories/images';
import { createService } from '../factories/services';
import { createTicket } from '../factories/support';
import { fenced } from '../support/mcp-session';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Names in the MCP tools' inputs (issue 58, point 2) and the vps_metrics tool (point 3), with the
 * MCP SDK's own client against the whole app on the simulator: every field that took an id (and
 * keeps its name) takes a name, a reference or a slug too; no match and several matches are tool errors.
 */
describe('MCP: names wherever an id is taken, and vps_metrics', () => {
  let t: TestApp;
  let url: string;
  let owner: TestAccount;
  let web: string;
  const clients: Client[] = [];

  async function connect(bearer: string): Promise<Client> {
    const client = new Client({ name: 'jest-agent', version: '1.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: bearer } } }));
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
  const post = (path: string) => request(t.http).post(path).set('Authorization', owner.bearer);

  beforeAll(async () => {
    t = await startTestApp({ COMPUTE_TRANSITION_DELAY_MS: '100' });
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    owner = await createAccount(t);
    web = (await createService(t, owner.id, { type: 'vps', name: 'web-1' })).id;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t.close();
  });

  it('keeps the input field names, and says that a name is taken too', async () => {
    const { tools } = await (await connect(owner.keyBearer)).listTools();
    const input = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, any>;
    expect(input('service_get').serviceId).toMatchObject({
      type: 'string',
      description: 'The service id (from services_list), or its name',
    });
    expect(input('ticket_get').ticketId.description).toContain('or its reference (T-000001)');
    expect(input('vps_rebuild').sshKeyIds.items.description).toContain('or its name or fingerprint');
    expect(input('snapshot_delete').imageId.description).toContain('or its name or slug');
  });

  it('gets a service and reboots a VPS by name; an id works as before', async () => {
    const client = await connect(owner.keyBearer);
    expect(await ok(client, 'service_get', { serviceId: 'web-1' })).toMatchObject({ id: web, name: fenced('web-1') });
    expect(await ok(client, 'service_get', { serviceId: web })).toMatchObject({ id: web });
    expect(await ok(client, 'vps_reboot', { serviceId: 'web-1' })).toMatchObject({ type: 'reboot', serviceId: web, status: 'succeeded' });
  });

  it('gets, replies to and closes a ticket by its reference', async () => {
    const client = await connect(owner.keyBearer);
    const ticket = await createTicket(t, owner, { subject: 'slow disk' });
    expect(await ok(client, 'ticket_get', { ticketId: ticket.reference })).toMatchObject({ id: ticket.id });
    expect(await ok(client, 'ticket_get', { ticketId: ticket.reference.toLowerCase() })).toMatchObject({ id: ticket.id });
    await ok(client, 'ticket_reply', { ticketId: ticket.reference, message: 'Any news?' });
    expect(await ok(client, 'ticket_close', { ticketId: ticket.reference })).toMatchObject({ id: ticket.id, status: 'closed' });
    const created = await ok(client, 'ticket_create', { subject: 'about web-1', message: 'hello', serviceId: 'web-1' });
    expect(created).toMatchObject({ serviceId: web });
  });

  it('rebuilds from a slug with SSH keys by name, snapshots, and deletes the snapshot by its name', async () => {
    const client = await connect(owner.keyBearer);
    const system = await createImage(t);
    await post('/api/ssh-keys').send({ name: 'laptop', publicKey: sshKeyPair().publicKey }).expect(201);
    const desk = (await post('/api/ssh-keys').send({ name: 'desk', publicKey: sshKeyPair().publicKey }).expect(201)).body;
    const rebuilt = await ok(client, 'vps_rebuild', {
      serviceId: 'web-1',
      image: system.slug,
      sshKeyIds: ['laptop', desk.fingerprint, desk.id],
    });
    expect(rebuilt).toMatchObject({ type: 'rebuild', serviceId: web, status: 'succeeded' });
    const made = await ok(client, 'vps_snapshot', { serviceId: 'web-1', name: 'before-upgrade' });
    expect(await ok(client, 'snapshot_delete', { imageId: 'before-upgrade' })).toMatchObject({ id: made.snapshot.imageId });
  });

  it('applies a firewall by name to VPSes by name', async () => {
    const client = await connect(owner.keyBearer);
    await createService(t, owner.id, { type: 'vps', name: 'web-2' });
    const firewall = await ok(client, 'firewall_create', {
      name: 'web',
      rules: [{ direction: 'in', protocol: 'tcp', port: '22', addresses: ['0.0.0.0/0'] }],
    });
    const applied = await ok(client, 'firewall_apply', { firewallId: 'web', serviceIds: ['web-1', 'web-2'], wait: false });
    expect(applied).toMatchObject({ id: firewall.id });
    expect((applied.appliedTo as { serviceId: string }[]).map((a) => a.serviceId)).toContain(web);
  });

  it('answers a name nothing has with not_found, and a name on two with ambiguous_name and their ids', async () => {
    const client = await connect(owner.keyBearer);
    expect(errorOf(await call(client, 'service_get', { serviceId: 'db-9' }))).toEqual({
      code: 'not_found',
      detail: 'No service of this account is named so; services_list lists names and ids.',
    });
    const twins = [
      (await post('/api/ssh-keys').send({ name: 'twin', publicKey: sshKeyPair().publicKey }).expect(201)).body.id,
      (await post('/api/ssh-keys').send({ name: 'twin', publicKey: sshKeyPair().publicKey }).expect(201)).body.id,
    ];
    const ambiguous = errorOf(await call(client, 'vps_rebuild', { serviceId: 'web-1', image: 'x', sshKeyIds: ['twin'] }));
    expect(ambiguous.code).toBe('ambiguous_name');
    for (const id of twins) expect(ambiguous.detail).toContain(id);
  });

  it('reads the metrics of a VPS by name with vps_metrics, a read tool', async () => {
    const reader = await connect((await createAccount(t, { scopes: ['read'] })).keyBearer);
    expect((await reader.listTools()).tools.find((tool) => tool.name === 'vps_metrics')?.annotations).toMatchObject({ readOnlyHint: true });
    const client = await connect(owner.keyBearer);
    const end = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    const start = new Date(Date.parse(end) - 6 * 3600_000).toISOString();
    const metrics = await ok(client, 'vps_metrics', { serviceId: 'web-1', types: ['cpu'], start, end, stepSeconds: 60 });
    expect(metrics).toMatchObject({ step: 60, unavailable: [] });
    expect(Object.keys(metrics.series)).toEqual(['cpu']);
    expect(metrics.series.cpu.length).toBeGreaterThan(300);
    const all = await ok(client, 'vps_metrics', { serviceId: web });
    expect(Object.keys(all.series)).toEqual(expect.arrayContaining(['cpu', 'disk.0.bandwidth.read']));
    expect(errorOf(await call(client, 'vps_metrics', { serviceId: 'web-1', start: end, end: start })).code).toBe('invalid_input');
  });
});

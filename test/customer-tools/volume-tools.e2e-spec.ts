import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { ComputeProvider, ComputeProviderError } from '@app/vps';
import { createHostingClient, HostingClient, listAll, unwrap, waitForVolumeAction } from '../../sdk/src';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { HOSTCTL, HostctlRun, runHostctl } from '../support/hostctl';
import { fenced } from '../support/mcp-session';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';

const GUIDE = join(__dirname, '../../docs/guides/volumes.md');
const DEVICE = /^\/dev\/disk\/by-id\/virtio-vol-[0-9a-f]{16}$/;
const REFUSED = 'The guest did not release the volume within 30 s; it stays attached. Stop the VPS and detach again.';
const VOLUME_TOOLS = ['volumes_list', 'volume_get', 'volume_attach', 'volume_detach', 'volume_resize', 'volume_action_get'];

const available = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// In CI (CI set) it runs, and fails without them.
const curlAndJq = (available('curl') && available('jq')) || !!process.env.CI;
if (!curlAndJq) process.stderr.write("Skipping the volume guide's curl block: it needs curl and jq on PATH.\n");

/** A block of the guide between its markers, as written. */
function block(name: string): string {
  const found = new RegExp(`<!-- guide:${name}:start -->\n\`\`\`sh\n([\\s\\S]*?)\`\`\`\n<!-- guide:${name}:end -->`).exec(
    readFileSync(GUIDE, 'utf8'),
  );
  if (!found) throw new Error(`${GUIDE} has no ${name} block`);
  return found[1];
}

/**
 * Volumes (issue 53) through the customer tools, against the whole API on the simulator: the SDK's
 * waitForVolumeAction (the README's example as written), `hostctl volume` by names with --wait,
 * -o json and the API's refusals, the MCP volume tools through the MCP SDK's client, and
 * docs/guides/volumes.md's hostctl and curl blocks as written. A volume whose guest keeps the disk
 * is the hypervisor's `detach_refused`, made here by the compute port refusing. One app; each test
 * on an account of its own (the hostctl steps share one and run in order), with VPSes web-01 and
 * web-02 in eu-central and west-1 in eu-west.
 */
describe('Volume tools: SDK, hostctl and MCP', () => {
  let t: TestApp;
  let url: string;
  let home: string;
  const clients: Client[] = [];

  interface Customer {
    account: TestAccount;
    web1: string;
    web2: string;
    west: string;
  }

  async function customer(): Promise<Customer> {
    const account = await createAccount(t);
    const web1 = (await createService(t, account.id, { name: 'web-01', region: 'eu-central' })).id;
    const web2 = (await createService(t, account.id, { name: 'web-02', region: 'eu-central' })).id;
    const west = (await createService(t, account.id, { name: 'west-1', region: 'eu-west' })).id;
    return { account, web1, web2, west };
  }

  /** A volume made by the operator, as the provider makes them. */
  async function provision(account: TestAccount, name: string, sizeGb = 20): Promise<string> {
    const run = await runCliIn(t.app, [
      'service:provision',
      '--email',
      account.email,
      '--type',
      'volume',
      '--size-gb',
      `${sizeGb}`,
      '--name',
      name,
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    return (run.lines[0] as { id: string }).id;
  }

  const volumeOf = async (account: TestAccount, id: string) => (await t.get(`/api/services/${id}`, account.bearer).expect(200)).body.volume;

  /** The compute port refuses to let go of the disk, as libvirt does while the guest holds it. */
  const guestHoldsTheDisk = () =>
    jest.spyOn(t.app.get(ComputeProvider), 'detachVolume').mockRejectedValue(new ComputeProviderError('detach_refused', REFUSED));

  beforeAll(async () => {
    t = await startTestApp();
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    home = mkdtempSync(join(tmpdir(), 'volume-tools-'));
    mkdirSync(join(home, 'bin'));
    writeFileSync(join(home, 'bin/hostctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(HOSTCTL)} "$@"\n`);
    chmodSync(join(home, 'bin/hostctl'), 0o755);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
    await t.close();
  });

  describe('SDK', () => {
    it("runs the README's example: attaches and waits, reads the device, grows and waits; then detaches by the action's id", async () => {
      const { account, web1: id } = await customer();
      const volumeId = await provision(account, 'data');
      const api: HostingClient = createHostingClient({ baseUrl: url, token: account.apiKey });

      // sdk/README.md, the volume example, as written.
      const [volume] = await listAll(api, '/api/services', { type: 'volume' });
      const attach = await unwrap(
        api.POST('/api/services/{id}/volume/attach', { params: { path: { id: volume.id } }, body: { serviceId: id } }),
      );
      const attached = await waitForVolumeAction(api, volume.id, attach);
      const { device } = await unwrap(api.GET('/api/services/{id}/volume', { params: { path: { id: volume.id } } }));
      const grow = await unwrap(
        api.POST('/api/services/{id}/volume/resize', { params: { path: { id: volume.id } }, body: { sizeGb: 200 } }),
      );
      const grown = await waitForVolumeAction(api, volume.id, grow);

      expect(volume.id).toBe(volumeId);
      expect(attach).toMatchObject({ type: 'attach', status: 'running', vpsServiceId: id });
      expect(attached).toMatchObject({ id: attach.id, status: 'succeeded', error: null, finishedAt: expect.any(String) });
      expect(device).toMatch(DEVICE);
      expect(grown).toMatchObject({ type: 'resize', status: 'succeeded', sizeGb: 200 });
      expect(await volumeOf(account, volumeId)).toEqual({ sizeGb: 200, region: 'eu-central', state: 'attached', attachedTo: id, device });

      const detach = await unwrap(api.POST('/api/services/{id}/volume/detach', { params: { path: { id: volumeId } } }));
      expect(await waitForVolumeAction(api, volumeId, detach.id, { intervalMs: 100 })).toMatchObject({
        type: 'detach',
        status: 'succeeded',
      });
      expect(await volumeOf(account, volumeId)).toMatchObject({ state: 'detached', attachedTo: null, device: null });
    });

    it('returns a failed action with its error, the volume left as it was', async () => {
      const { account, web1 } = await customer();
      const volumeId = await provision(account, 'data');
      const api = createHostingClient({ baseUrl: url, token: account.apiKey });
      const params = { params: { path: { id: volumeId } } };
      await waitForVolumeAction(
        api,
        volumeId,
        await unwrap(api.POST('/api/services/{id}/volume/attach', { ...params, body: { serviceId: web1 } })),
      );
      const held = guestHoldsTheDisk();
      try {
        const failed = await waitForVolumeAction(api, volumeId, await unwrap(api.POST('/api/services/{id}/volume/detach', params)));
        expect(failed).toMatchObject({ type: 'detach', status: 'failed', error: { code: 'detach_refused', message: REFUSED } });
      } finally {
        held.mockRestore();
      }
      expect(await volumeOf(account, volumeId)).toMatchObject({
        state: 'attached',
        attachedTo: web1,
        device: expect.stringMatching(DEVICE),
      });
    });
  });

  describe('hostctl volume', () => {
    let c: Customer;
    let volumeId: string;
    const hostctl = (args: string[], env: Record<string, string> = {}): Promise<HostctlRun> =>
      runHostctl(args, { home, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: c.account.apiKey, ...env } });
    async function ok(args: string[]): Promise<HostctlRun> {
      const run = await hostctl(args);
      if (run.code !== 0) throw new Error(`hostctl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
      return run;
    }

    beforeAll(async () => {
      c = await customer();
      volumeId = await provision(c.account, 'data');
    });

    it('lists and shows volumes by name, attaches with --wait and prints the device; the VPS lists it', async () => {
      const before = (await ok(['volume', 'list'])).stdout.split('\n');
      expect(before[0]).toMatch(/^NAME\s+ID\s+SIZE\s+REGION\s+STATE\s+ATTACHED TO\s+DEVICE$/);
      expect(before[1]).toMatch(new RegExp(`^data\\s+${volumeId}\\s+20 GiB\\s+eu-central\\s+detached\\s+-\\s+-$`));

      const attached = await ok(['volume', 'attach', 'data', 'web-01', '--wait']);
      const [done, deviceLine] = attached.stdout.split('\n');
      expect(done).toMatch(/^attach data to web-01: succeeded \(action [0-9a-f-]{36}\)$/);
      const device = deviceLine.replace(/^Device: /, '');
      expect(device).toMatch(DEVICE);
      expect(await volumeOf(c.account, volumeId)).toMatchObject({ state: 'attached', attachedTo: c.web1, device });

      expect((await ok(['volume', 'list'])).stdout).toMatch(
        new RegExp(`^data\\s+${volumeId}\\s+20 GiB\\s+eu-central\\s+attached\\s+web-01\\s+${device}$`, 'm'),
      );
      const shown = (await ok(['volume', 'get', 'data'])).stdout;
      expect(shown).toMatch(/^State:\s+attached$/m);
      expect(shown).toMatch(new RegExp(`^Attached to:\\s+web-01 \\(${c.web1}\\)$`, 'm'));
      expect(shown).toMatch(new RegExp(`^Device:\\s+${device}$`, 'm'));
      const asJson = (await ok(['volume', 'get', volumeId, '-o', 'json'])).json;
      expect(asJson).toEqual((await t.get(`/api/services/${volumeId}`, c.account.bearer).expect(200)).body);
      expect((await ok(['volume', 'list', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([volumeId]);

      expect((await ok(['services', 'get', 'web-01'])).stdout).toMatch(new RegExp(`^Volumes:\\s+data \\(attached, ${device}\\)$`, 'm'));
      expect((await ok(['services', 'list', '--type', 'volume', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([volumeId]);
    });

    it('grows a volume and detaches it by id; -o json prints the action; the API refusals end with exit 1 and their code', async () => {
      const grown = (await ok(['volume', 'resize', 'data', '--size', '30', '--wait', '-o', 'json'])).json;
      expect(grown).toMatchObject({ serviceId: volumeId, type: 'resize', status: 'succeeded', sizeGb: 30 });

      const smaller = await hostctl(['volume', 'resize', 'data', '--size', '30']);
      expect(smaller.code).toBe(1);
      expect(smaller.stderr).toMatch(/^ {2}sizeGb: must be larger than the current 30 GiB$/m);
      expect(smaller.stderr).toMatch(/status: 400\n\s+code: invalid_input/);
      const inUse = await hostctl(['volume', 'attach', 'data', 'web-02', '-o', 'json']);
      expect({ code: inUse.code, stdout: inUse.stdout }).toEqual({ code: 1, stdout: '' });
      expect(JSON.parse(inUse.stderr)).toMatchObject({ code: 'volume_in_use', status: 409, exitCode: 1 });
      const noSuch = await hostctl(['volume', 'get', 'archive']);
      expect({ code: noSuch.code, stderr: noSuch.stderr }).toEqual({
        code: 1,
        stderr: 'Error: no volume named "archive" in this account ("hostctl services list" shows names and ids)\n',
      });
      expect((await hostctl(['volume', 'resize', 'data'])).code).toBe(2);

      const detach = await ok(['volume', 'detach', volumeId]);
      expect(detach.stdout).toMatch(new RegExp(`^detach ${volumeId}: (running \\(\\d+%[^)]*\\)|succeeded) \\(action [0-9a-f-]{36}\\)\\n$`));
      const actionId = /\(action ([0-9a-f-]{36})\)/.exec(detach.stdout)![1];
      const api = createHostingClient({ baseUrl: url, token: c.account.apiKey });
      expect(await waitForVolumeAction(api, volumeId, actionId)).toMatchObject({ status: 'succeeded' });
      expect((await ok(['volume', 'list'])).stdout).toMatch(/^data\s+\S+\s+30 GiB\s+eu-central\s+detached\s+-\s+-$/m);
      const again = await hostctl(['volume', 'detach', 'data']);
      expect(again.stderr).toMatch(/not attached to a VPS[\s\S]*status: 409\n\s+code: invalid_state/);
      const region = await hostctl(['volume', 'attach', 'data', 'west-1']);
      expect(region.code).toBe(1);
      expect(region.stderr).toMatch(
        /^Error: The volume is in eu-central, the VPS in eu-west\.\n[\s\S]*status: 409\n\s+code: region_mismatch$/m,
      );
    });

    it('exits 1 naming the code and message of an action that failed, and the volume stays attached', async () => {
      await ok(['volume', 'attach', 'data', 'web-02', '--wait']);
      const held = guestHoldsTheDisk();
      try {
        const refused = await hostctl(['volume', 'detach', 'data', '--wait']);
        expect(refused.code).toBe(1);
        expect(refused.stdout).toMatch(/^detach data: failed \(action [0-9a-f-]{36}\)\n$/);
        expect(refused.stderr).toBe(`Error: detach of ${volumeId} failed: detach_refused: ${REFUSED}\n`);
        const asJson = await hostctl(['volume', 'detach', 'data', '--wait', '-o', 'json']);
        expect(asJson.code).toBe(1);
        expect(JSON.parse(asJson.stdout)).toMatchObject({ type: 'detach', status: 'failed', error: { code: 'detach_refused' } });
        expect(JSON.parse(asJson.stderr)).toMatchObject({ code: 'action_failed', status: null, exitCode: 1 });
      } finally {
        held.mockRestore();
      }
      expect((await ok(['volume', 'get', 'data'])).stdout).toMatch(/^Attached to:\s+web-02 /m);
    });

    it('needs the write scope for actions, and completes the volume commands in bash', async () => {
      const reader = await createAccount(t, { scopes: ['read'] });
      const theirs = await provision(reader, 'backups');
      const refused = await hostctl(['volume', 'resize', 'backups', '--size', '50'], { HOSTCTL_TOKEN: reader.apiKey });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/status: 403\n\s+code: insufficient_scope/);
      expect(
        (await hostctl(['volume', 'list', '-o', 'json'], { HOSTCTL_TOKEN: reader.apiKey })).json.map((s: { id: string }) => s.id),
      ).toEqual([theirs]);

      writeFileSync(join(home, 'completion.bash'), (await ok(['completion', 'bash'])).stdout);
      const complete = (words: string) =>
        new Promise<string>((resolve) => {
          const script = `source ${JSON.stringify(join(home, 'completion.bash'))}; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _hostctl; echo "\${COMPREPLY[*]}"`;
          const child = spawn('bash', ['-c', script]);
          let out = '';
          child.stdout.on('data', (chunk) => (out += chunk));
          child.on('close', () => resolve(out.trim()));
        });
      expect((await complete('hostctl vo')).split(' ')).toEqual(['volume']);
      expect((await complete('hostctl volume ""')).split(' ')).toEqual(
        expect.arrayContaining(['list', 'get', 'attach', 'detach', 'resize']),
      );
      expect((await complete('hostctl volume resize --s')).split(' ')).toEqual(['--size']);
    });
  });

  describe('MCP tools', () => {
    async function connect(bearer: string): Promise<Client> {
      const client = new Client({ name: 'jest-agent', version: '1.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: bearer } } }),
      );
      clients.push(client);
      return client;
    }
    const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    const errorOf = (result: CallToolResult) => {
      expect(result.isError).toBe(true);
      return JSON.parse((result.content[1] as { text: string }).text).error;
    };

    it('lists the volume tools with the write scope and hints; a read-only key gets the read tools and a scope error', async () => {
      const { account } = await customer();
      const { tools } = await (await connect(account.keyBearer)).listTools();
      const listed = tools.filter((tool) => VOLUME_TOOLS.includes(tool.name));
      expect(listed.map((tool) => tool.name)).toEqual(VOLUME_TOOLS);
      const hints = Object.fromEntries(listed.map((tool) => [tool.name, tool.annotations]));
      for (const name of ['volumes_list', 'volume_get', 'volume_action_get']) expect(hints[name]).toMatchObject({ readOnlyHint: true });
      expect(hints.volume_attach).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
      expect(hints.volume_resize).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
      expect(hints.volume_detach).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
      const servicesList = tools.find((tool) => tool.name === 'services_list')!;
      expect(servicesList.inputSchema.properties!.type).toMatchObject({ enum: ['vps', 'volume', 'object_storage'] });

      const reader = await connect((await createAccount(t, { scopes: ['read'] })).keyBearer);
      expect((await reader.listTools()).tools.map((tool) => tool.name).filter((name) => VOLUME_TOOLS.includes(name))).toEqual([
        'volumes_list',
        'volume_get',
        'volume_action_get',
      ]);
      const refused = await call(reader, 'volume_detach', { volumeId: account.id });
      expect(errorOf(refused)).toMatchObject({ code: 'insufficient_scope', status: 403 });
    });

    it('attaches with progress notifications, grows and detaches; names are fenced; refusals and a failed action are tool errors', async () => {
      const { account, web1, web2, west } = await customer();
      const volumeId = await provision(account, 'mcp-data');
      const client = await connect(account.keyBearer);

      const list = (await call(client, 'volumes_list')).structuredContent as { total: number; data: { id: string; name: string }[] };
      expect(list).toMatchObject({
        total: 1,
        data: [{ id: volumeId, name: fenced('mcp-data'), volume: { state: 'detached', sizeGb: 20 } }],
      });
      const byType = (await call(client, 'services_list', { type: 'volume' })).structuredContent as { data: { id: string }[] };
      expect(byType.data.map((s) => s.id)).toEqual([volumeId]);

      const progress: Progress[] = [];
      const attached = (await client.callTool({ name: 'volume_attach', arguments: { volumeId, vpsServiceId: web1 } }, undefined, {
        onprogress: (p) => progress.push(p),
      })) as CallToolResult;
      expect(attached.isError).toBeFalsy();
      expect(attached.structuredContent).toMatchObject({ type: 'attach', status: 'succeeded', vpsServiceId: web1, error: null });
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress.at(-1)!.message).toBe(`attach of volume ${volumeId}: succeeded`);
      const attachId = (attached.structuredContent as { id: string }).id;

      const vps = (await call(client, 'service_get', { serviceId: web1 })).structuredContent as { instance: { volumes: unknown[] } };
      const device = (await volumeOf(account, volumeId)).device;
      expect(device).toMatch(DEVICE);
      expect(vps.instance.volumes).toEqual([{ id: volumeId, name: fenced('mcp-data'), sizeGb: 20, state: 'attached', device }]);
      expect((await call(client, 'volume_get', { volumeId })).structuredContent).toMatchObject({
        id: volumeId,
        type: 'volume',
        volume: { state: 'attached', attachedTo: web1, device },
      });
      expect(errorOf(await call(client, 'volume_get', { volumeId: web1 }))).toEqual({
        code: 'not_found',
        detail: `Service ${web1} is a vps, not a volume (volumes_list).`,
      });
      expect(errorOf(await call(client, 'volume_attach', { volumeId, vpsServiceId: web2 }))).toMatchObject({
        status: 409,
        code: 'volume_in_use',
      });

      expect(errorOf(await call(client, 'volume_resize', { volumeId, sizeGb: 20 }))).toMatchObject({
        status: 400,
        code: 'invalid_input',
        errors: [{ field: 'sizeGb', message: 'must be larger than the current 20 GiB' }],
      });
      expect((await call(client, 'volume_resize', { volumeId, sizeGb: 40 })).structuredContent).toMatchObject({
        status: 'succeeded',
        sizeGb: 40,
      });

      const held = guestHoldsTheDisk();
      try {
        const failed = await call(client, 'volume_detach', { volumeId });
        expect(failed.isError).toBe(true);
        expect((failed.content[0] as { text: string }).text).toMatch(
          /^detach failed: detach_refused: <untrusted-[0-9a-f]+>The guest did not release/,
        );
        expect(JSON.parse((failed.content[1] as { text: string }).text).action).toMatchObject({
          type: 'detach',
          status: 'failed',
          error: { code: 'detach_refused', message: fenced(REFUSED) },
        });
      } finally {
        held.mockRestore();
      }
      const started = await call(client, 'volume_detach', { volumeId, wait: false });
      expect(started.structuredContent).toMatchObject({ type: 'detach', status: 'running', vpsServiceId: web1 });
      const detachId = (started.structuredContent as { id: string }).id;
      const api = createHostingClient({ baseUrl: url, token: account.apiKey });
      await waitForVolumeAction(api, volumeId, detachId);
      expect((await call(client, 'volume_action_get', { volumeId, actionId: detachId })).structuredContent).toMatchObject({
        status: 'succeeded',
      });
      expect((await call(client, 'volume_action_get', { volumeId, actionId: attachId })).structuredContent).toMatchObject({
        type: 'attach',
        status: 'succeeded',
      });
      expect(errorOf(await call(client, 'volume_attach', { volumeId, vpsServiceId: west }))).toMatchObject({
        status: 409,
        code: 'region_mismatch',
      });

      const events = (await t.get('/api/events?entityType=service&pageSize=100', account.bearer).expect(200)).body.data;
      const volumeEvents = events.filter((e: { action: string }) => e.action.startsWith('volume.'));
      expect(volumeEvents.map((e: { action: string }) => e.action).reverse()).toEqual([
        'volume.attach',
        'volume.resize',
        'volume.detach',
        'volume.detach',
      ]);
      expect(volumeEvents.every((e: { userAgent: string }) => /^hosting-account-mcp\/\S+ \(jest-agent\/1\.0\)$/.test(e.userAgent))).toBe(
        true,
      );
    });
  });

  describe('the guide, as written', () => {
    function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
      return new Promise((resolve, reject) => {
        const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { PATH: `${join(home, 'bin')}:${process.env.PATH}`, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...env },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    it('runs the hostctl block: list, attach and wait, get, resize, detach, and attach to another VPS', async () => {
      const { account, web2 } = await customer();
      const volumeId = await provision(account, 'data');
      const run = await bash(block('volume-hostctl'), { HOSTCTL_URL: url, HOSTCTL_TOKEN: account.apiKey });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(
        /^attach data to web-01: succeeded \(action \S+\)\nDevice: \/dev\/disk\/by-id\/virtio-vol-[0-9a-f]{16}\nID: /m,
      );
      expect(run.stdout).toMatch(/^Attached to:\s+web-01 \(/m);
      expect(run.stdout).toMatch(
        /^resize data to 30 GiB: succeeded \(action \S+\)\ndetach data: succeeded \(action \S+\)\nattach data to web-02: succeeded/m,
      );
      expect(await volumeOf(account, volumeId)).toMatchObject({ sizeGb: 30, state: 'attached', attachedTo: web2 });
    });

    (curlAndJq ? it : it.skip)('runs the curl block with the address and the key swapped in', async () => {
      const { account, web2 } = await customer();
      const volumeId = await provision(account, 'data');
      const script = block('volume-curl');
      for (const line of ['API=https://api.hosting.example\n', 'TOKEN=hpk_...\n']) expect(script).toContain(line);
      const swapped = script
        .replace('API=https://api.hosting.example\n', `API=${url}\n`)
        .replace('TOKEN=hpk_...\n', `TOKEN=${account.apiKey}\n`);
      const run = await bash(swapped, {});
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const device = (await volumeOf(account, volumeId)).device;
      expect(run.stdout.split('\n')).toEqual([
        '{"type":"attach","status":"succeeded","error":null}',
        expect.stringMatching(DEVICE),
        '{"type":"resize","status":"succeeded","error":null}',
        '{"type":"detach","status":"succeeded","error":null}',
        '{"type":"attach","status":"succeeded","error":null}',
        `{"sizeGb":30,"state":"attached","attachedTo":"${web2}"}`,
        '',
      ]);
      expect(device).toMatch(DEVICE);
    });
  });
});

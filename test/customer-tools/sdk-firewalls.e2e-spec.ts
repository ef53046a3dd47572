import type { AddressInfo } from 'node:net';
import { ComputeProvider, ComputeProviderError } from '@app/vps';
import {
  createHostingClient,
  type FirewallRule,
  FirewallTimeoutError,
  HostingApiError,
  HostingClient,
  listAll,
  unenforcedAttachments,
  unwrap,
  waitForFirewall,
} from '../../sdk/src';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Cloud firewalls through the SDK (issue 52): sdk/README.md's example as written, waitForFirewall
 * until the hypervisor enforces the rules, and its timeout while it cannot. The steps share one
 * account and run in order.
 */
describe('SDK: a firewall for a web server', () => {
  let t: TestApp;
  let account: TestAccount;
  let api: HostingClient;
  let id: string;
  let otherId: string;
  let firewallId: string;

  beforeAll(async () => {
    t = await startTestApp();
    account = await createAccount(t);
    api = createHostingClient({ baseUrl: `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`, token: account.apiKey });
    id = (await createService(t, account.id, { type: 'vps', name: 'web-1' })).id;
    otherId = (await createService(t, account.id, { type: 'vps', name: 'web-2' })).id;
  });
  afterAll(() => t.close());

  it("runs the README's example: creates, applies and waits, then opens another port and waits again", async () => {
    // sdk/README.md, "A firewall for a web server", as written.
    const anywhere = ['0.0.0.0/0', '::/0'];
    const rules: FirewallRule[] = [
      ...['22', '80', '443'].map((port): FirewallRule => ({ direction: 'in', protocol: 'tcp', port, addresses: anywhere })),
      { direction: 'in', protocol: 'icmp', addresses: anywhere, description: 'ping' },
    ];
    const fw = await unwrap(api.POST('/api/firewalls', { body: { name: 'web', rules } }));
    await unwrap(api.POST('/api/firewalls/{id}/apply', { params: { path: { id: fw.id } }, body: { serviceIds: [id] } }));
    const applied = await waitForFirewall(api, fw.id, { serviceIds: [id] });
    const now = await unwrap(
      api.PATCH('/api/firewalls/{id}', {
        params: { path: { id: fw.id } },
        body: { rules: [...fw.rules, { direction: 'in', protocol: 'tcp', port: '8080', addresses: anywhere }] },
      }),
    );
    const enforced = await waitForFirewall(api, now.id);

    firewallId = fw.id;
    expect(applied.appliedTo).toEqual([{ serviceId: id, status: 'applied' }]);
    expect(now.rules.map((r) => r.port ?? r.protocol)).toEqual(['22', '80', '443', 'icmp', '8080']);
    expect(enforced).toMatchObject({ id: fw.id, rules: now.rules, appliedTo: [{ serviceId: id, status: 'applied' }] });
    const vps = await unwrap(api.GET('/api/services/{id}', { params: { path: { id } } }));
    expect(vps.instance?.firewalls).toEqual([{ id: fw.id, name: 'web', status: 'applied' }]);
    expect((await listAll(api, '/api/firewalls')).map((f) => f.name)).toEqual(['web']);
  });

  it('gives up with FirewallTimeoutError while a hypervisor cannot enforce the rules, and waits through failed once it can', async () => {
    const compute = t.app.get(ComputeProvider);
    const down = jest
      .spyOn(compute, 'applyFirewalls')
      .mockRejectedValue(new ComputeProviderError('hypervisor_unavailable', 'the host does not answer', true));
    try {
      const fw = await unwrap(
        api.POST('/api/firewalls/{id}/apply', { params: { path: { id: firewallId } }, body: { serviceIds: [otherId] } }),
      );
      expect(unenforcedAttachments(fw).map((a) => a.serviceId)).toEqual([otherId]);
      // The VPS applied before is not waited for, nor blocks the wait.
      expect((await waitForFirewall(api, firewallId, { serviceIds: [id], intervalMs: 50 })).id).toBe(firewallId);

      const error = await waitForFirewall(api, firewallId, { timeoutMs: 3_000, intervalMs: 100 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FirewallTimeoutError);
      const { waitingFor, firewall } = error as FirewallTimeoutError;
      expect(waitingFor).toEqual([{ serviceId: otherId, status: 'failed' }]);
      expect(firewall.appliedTo).toContainEqual({ serviceId: id, status: 'applied' });
    } finally {
      down.mockRestore();
    }
    // The API retries with backoff (2 s, then 4 s, ...): the wait sees it through.
    const done = await waitForFirewall(api, firewallId, { timeoutMs: 30_000, intervalMs: 100 });
    expect(unenforcedAttachments(done)).toEqual([]);
    expect(done.appliedTo).toHaveLength(2);
  }, 60_000);

  it('answers what the API refuses as a HostingApiError naming the rule', async () => {
    const refused = await unwrap(
      api.POST('/api/firewalls', {
        body: { name: 'bad', rules: [{ direction: 'in', protocol: 'tcp', port: '22', addresses: ['10.0.0.1/8'] }] },
      }),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HostingApiError);
    expect((refused as HostingApiError).errors).toEqual([
      { field: 'rules[0].addresses[0]', message: expect.stringContaining('10.0.0.0/8') },
    ]);
    const inUse = await unwrap(api.DELETE('/api/firewalls/{id}', { params: { path: { id: firewallId } } })).catch((e: unknown) => e);
    expect(inUse).toMatchObject({ status: 409, code: 'firewall_in_use' });
    await unwrap(api.POST('/api/firewalls/{id}/remove', { params: { path: { id: firewallId } }, body: { serviceIds: [id, otherId] } }));
    await unwrap(api.DELETE('/api/firewalls/{id}', { params: { path: { id: firewallId } } }));
    expect(await listAll(api, '/api/firewalls')).toEqual([]);
  });
});

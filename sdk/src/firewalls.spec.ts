import { createHostingClient } from './client';
import { FirewallTimeoutError, waitForFirewall, type Firewall } from './firewalls';
import { HostingApiError } from './errors';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

function firewall(...appliedTo: Firewall['appliedTo']): Firewall {
  return { id: 'f1', name: 'web', rules: [], appliedTo, createdAt: '', updatedAt: '' };
}

/** A client whose GETs of the firewall answer from a script (the last answer repeats). */
function scripted(...answers: (Firewall | Response)[]) {
  let asked = 0;
  const fetch = async (request: Request) => {
    expect(new URL(request.url).pathname).toBe('/api/firewalls/f1');
    const next = answers[Math.min(asked++, answers.length - 1)];
    return next instanceof Response ? next : Response.json(next);
  };
  return { api: createHostingClient({ baseUrl: 'http://api.test', token: 'hpk_x', fetch, retry: false }), asked: () => asked };
}

describe('waitForFirewall', () => {
  it('polls until every VPS enforces the rules, waiting through failed (the API retries it)', async () => {
    const { api, asked } = scripted(
      firewall({ serviceId: A, status: 'pending' }, { serviceId: B, status: 'pending' }),
      firewall({ serviceId: A, status: 'applied' }, { serviceId: B, status: 'failed' }),
      firewall({ serviceId: A, status: 'applied' }, { serviceId: B, status: 'applied' }),
    );
    const done = await waitForFirewall(api, 'f1', { intervalMs: 1 });
    expect(done.appliedTo.map((a) => a.status)).toEqual(['applied', 'applied']);
    expect(asked()).toBe(3);
  });

  it('waits for the VPSes named only, and not for one removed meanwhile', async () => {
    const { api, asked } = scripted(firewall({ serviceId: A, status: 'applied' }, { serviceId: B, status: 'pending' }));
    await waitForFirewall(api, 'f1', { serviceIds: [A], intervalMs: 1 });
    expect(asked()).toBe(1);
    const gone = scripted(firewall({ serviceId: A, status: 'pending' }), firewall());
    expect((await waitForFirewall(gone.api, 'f1', { serviceIds: [A], intervalMs: 1 })).appliedTo).toEqual([]);
  });

  it('gives up with the firewall and the VPSes still waited for', async () => {
    const { api } = scripted(firewall({ serviceId: A, status: 'applied' }, { serviceId: B, status: 'failed' }));
    const error = await waitForFirewall(api, 'f1', { timeoutMs: 30, intervalMs: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FirewallTimeoutError);
    expect((error as FirewallTimeoutError).waitingFor).toEqual([{ serviceId: B, status: 'failed' }]);
    expect((error as Error).message).toBe(`Firewall f1 (web) not enforced after 30 ms on ${B} (failed, retried)`);
  });

  it('waits out a 429 and throws any other error answer', async () => {
    const limited = new Response('{"code":"rate_limited","status":429,"detail":"slow down"}', {
      status: 429,
      headers: { 'Retry-After': '0', 'Content-Type': 'application/problem+json' },
    });
    const { api } = scripted(limited, firewall({ serviceId: A, status: 'applied' }));
    expect((await waitForFirewall(api, 'f1', { intervalMs: 1 })).appliedTo).toEqual([{ serviceId: A, status: 'applied' }]);

    const missing = new Response('{"code":"not_found","status":404,"detail":"Firewall not found."}', {
      status: 404,
      headers: { 'Content-Type': 'application/problem+json' },
    });
    const error = await waitForFirewall(scripted(missing).api, 'f1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostingApiError);
    expect((error as HostingApiError).code).toBe('not_found');
  });
});

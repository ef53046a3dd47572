import { idempotencyKeys, retryAfterMs, retryingFetch } from './retry';
import { createHostingClient } from './client';

/** A fetch that answers from a script and records what it was sent. */
function scripted(...answers: (Response | Error)[]) {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request);
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, sent };
}

const status = (code: number, headers: Record<string, string> = {}) => new Response(code === 204 ? null : '{}', { status: code, headers });
const options = { baseDelayMs: 1 };

describe('retryingFetch', () => {
  it('retries a GET after a 503 and a network error, waiting Retry-After', async () => {
    const { fetch, sent } = scripted(status(503, { 'Retry-After': '0' }), new TypeError('fetch failed'), status(200));
    const response = await retryingFetch(fetch, options)(new Request('http://api.test/api/services'));
    expect(response.status).toBe(200);
    expect(sent).toHaveLength(3);
  });

  it('gives up after `retries` more attempts and returns the last answer', async () => {
    const { fetch, sent } = scripted(status(502), status(502), status(504));
    expect((await retryingFetch(fetch, { ...options, retries: 2 })(new Request('http://api.test/x'))).status).toBe(504);
    expect(sent).toHaveLength(3);
  });

  it('retries a POST only when it carries an Idempotency-Key, sending the same body again', async () => {
    const plain = scripted(status(503), status(201));
    expect((await retryingFetch(plain.fetch, options)(new Request('http://api.test/x', { method: 'POST', body: '{"a":1}' }))).status).toBe(
      503,
    );
    expect(plain.sent).toHaveLength(1);

    const keyed = scripted(status(503), status(201));
    const request = new Request('http://api.test/x', { method: 'POST', body: '{"a":1}', headers: { 'Idempotency-Key': 'k1' } });
    expect((await retryingFetch(keyed.fetch, options)(request)).status).toBe(201);
    expect(await Promise.all(keyed.sent.map((r) => r.text()))).toEqual(['{"a":1}', '{"a":1}']);
    expect(keyed.sent.map((r) => r.headers.get('idempotency-key'))).toEqual(['k1', 'k1']);
  });

  it('retries any request after a 429, but not one whose Retry-After is beyond maxDelayMs', async () => {
    const limited = scripted(status(429, { 'Retry-After': '0' }), status(200));
    expect(
      (await retryingFetch(limited.fetch, options)(new Request('http://api.test/api/auth/login', { method: 'POST', body: '{}' }))).status,
    ).toBe(200);

    const far = scripted(status(429, { 'Retry-After': '120' }), status(200));
    expect((await retryingFetch(far.fetch, { ...options, maxDelayMs: 1000 })(new Request('http://api.test/x'))).status).toBe(429);
    expect(far.sent).toHaveLength(1);
  });

  it('does not retry a client error', async () => {
    const { fetch, sent } = scripted(status(409), status(200));
    expect((await retryingFetch(fetch, options)(new Request('http://api.test/x', { method: 'DELETE' }))).status).toBe(409);
    expect(sent).toHaveLength(1);
  });

  it('tells onRetry of each retry before waiting: the attempt, the delay, and the answer or the error', async () => {
    const { fetch } = scripted(status(429, { 'Retry-After': '0' }), new TypeError('fetch failed'), status(200));
    const notices: { attempt: number; delayMs: number; status?: number; error?: string; url: string }[] = [];
    const response = await retryingFetch(fetch, {
      ...options,
      onRetry: ({ attempt, delayMs, response, error, request }) =>
        void notices.push({ attempt, delayMs, status: response?.status, error: (error as Error | undefined)?.message, url: request.url }),
    })(new Request('http://api.test/api/services'));
    expect(response.status).toBe(200);
    expect(notices).toEqual([
      { attempt: 1, delayMs: 0, status: 429, error: undefined, url: 'http://api.test/api/services' },
      { attempt: 2, delayMs: 2, status: undefined, error: 'fetch failed', url: 'http://api.test/api/services' },
    ]);
  });

  it('gives up when onRetry answers false: the 429 comes back with its body, a network error is thrown', async () => {
    const limited = scripted(new Response('{"code":"rate_limited"}', { status: 429, headers: { 'Retry-After': '30' } }), status(200));
    const answer = await retryingFetch(limited.fetch, { ...options, onRetry: async ({ response }) => response?.status !== 429 })(
      new Request('http://api.test/api/support/tickets', { method: 'POST', body: '{}', headers: { 'Idempotency-Key': 'k' } }),
    );
    expect(answer.status).toBe(429);
    expect(await answer.json()).toEqual({ code: 'rate_limited' });
    expect(limited.sent).toHaveLength(1);

    const down = scripted(new TypeError('fetch failed'), status(200));
    await expect(retryingFetch(down.fetch, { ...options, onRetry: () => false })(new Request('http://api.test/x'))).rejects.toThrow(
      'fetch failed',
    );
    expect(down.sent).toHaveLength(1);
  });

  it('does not call onRetry when no retry follows (the last attempt, or a Retry-After beyond maxDelayMs)', async () => {
    const onRetry = jest.fn();
    const { fetch } = scripted(status(503), status(503));
    expect((await retryingFetch(fetch, { ...options, retries: 1, onRetry })(new Request('http://api.test/x'))).status).toBe(503);
    expect(onRetry).toHaveBeenCalledTimes(1);
    const far = scripted(status(429, { 'Retry-After': '120' }));
    await retryingFetch(far.fetch, { ...options, maxDelayMs: 1000, onRetry })(new Request('http://api.test/x'));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs(status(429, { 'Retry-After': '3' }))).toBe(3000);
    const date = retryAfterMs(status(429, { 'Retry-After': new Date(Date.now() + 5000).toUTCString() }))!;
    expect(date).toBeGreaterThan(3000);
    expect(date).toBeLessThanOrEqual(5000);
    expect(retryAfterMs(status(429, { 'Retry-After': 'soon' }))).toBeUndefined();
  });
});

describe('idempotencyKeys and the client', () => {
  it('gives every POST outside /api/auth/ its own key, kept across retries', async () => {
    const { fetch, sent } = scripted(status(503, { 'Retry-After': '0' }), status(202), status(200), status(201));
    const api = createHostingClient({ baseUrl: 'http://api.test', token: 'hpk_x', fetch, retry: options });
    await api.POST('/api/services/{id}/instance/stop', { params: { path: { id: 's1' } } });
    await api.POST('/api/notifications/read-all');
    await api.POST('/api/auth/api-keys', { body: { name: 'k' } });
    const keys = sent.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys[3]).toBeNull();
    expect(sent.every((r) => r.headers.get('authorization') === 'Bearer hpk_x')).toBe(true);
  });

  it('passes retry.onRetry through createHostingClient', async () => {
    const { fetch } = scripted(status(429, { 'Retry-After': '0' }), new Response('[]', { status: 200 }));
    const seen: number[] = [];
    const api = createHostingClient({
      baseUrl: 'http://api.test',
      token: 'hpk_x',
      fetch,
      retry: { ...options, onRetry: (r) => void seen.push(r.response!.status) },
    });
    await api.GET('/api/ssh-keys');
    expect(seen).toEqual([429]);
  });

  it('keeps a key the caller set', async () => {
    const middleware = idempotencyKeys();
    const request = new Request('http://api.test/api/ssh-keys', { method: 'POST', headers: { 'Idempotency-Key': 'mine' } });
    const result = await (middleware.onRequest as any)({ request });
    expect((result ?? request).headers.get('idempotency-key')).toBe('mine');
  });
});

import { createHostingClient } from './client';
import { HostingApiError } from './errors';
import { VolumeActionTimeoutError, waitForVolumeAction, type VolumeAction } from './volumes';

const VOL = '11111111-1111-4111-8111-111111111111';
const ACT = '22222222-2222-4222-8222-222222222222';

function action(
  status: VolumeAction['status'],
  error: VolumeAction['error'] = null,
  progress = status === 'succeeded' ? 100 : 10,
): VolumeAction {
  return {
    id: ACT,
    serviceId: VOL,
    type: 'attach',
    status,
    vpsServiceId: '33333333-3333-4333-8333-333333333333',
    sizeGb: null,
    startedAt: '2026-11-28T00:00:00.000Z',
    finishedAt: status === 'running' ? null : '2026-11-28T00:00:01.000Z',
    progress,
    step: status === 'running' ? 'attaching the volume to the VPS' : null,
    error,
  };
}

/** A client whose GETs of the action answer from a script (the last answer repeats). */
function scripted(...answers: (VolumeAction | Response)[]) {
  let asked = 0;
  const fetch = async (request: Request) => {
    expect(new URL(request.url).pathname).toBe(`/api/services/${VOL}/volume/actions/${ACT}`);
    const next = answers[Math.min(asked++, answers.length - 1)];
    return next instanceof Response ? next : Response.json(next);
  };
  return { api: createHostingClient({ baseUrl: 'http://api.test', token: 'hpk_x', fetch, retry: false }), asked: () => asked };
}

describe('waitForVolumeAction', () => {
  it('polls until the action has finished and returns it, a failed one too (status and error say why)', async () => {
    const { api, asked } = scripted(action('running'), action('running'), action('succeeded'));
    expect((await waitForVolumeAction(api, VOL, ACT, { intervalMs: 1 })).status).toBe('succeeded');
    expect(asked()).toBe(3);

    const refused = { code: 'detach_refused', message: 'The guest did not release the volume' };
    const failed = await waitForVolumeAction(scripted(action('running'), action('failed', refused)).api, VOL, ACT, { intervalMs: 1 });
    expect(failed).toMatchObject({ status: 'failed', error: refused });
  });

  it('tells onPoll of each answer on the way, its progress and step, the last one included', async () => {
    const { api } = scripted(action('running', null, 10), action('running', null, 50), action('succeeded'));
    const seen: string[] = [];
    const onPoll = (polled: VolumeAction) => seen.push(`${polled.progress} ${polled.step ?? '-'}`);
    await waitForVolumeAction(api, VOL, ACT, { intervalMs: 1, onPoll });
    expect(seen).toEqual(['10 attaching the volume to the VPS', '50 attaching the volume to the VPS', '100 -']);
  });

  it('takes the action the POST answered, and returns one that has finished without asking', async () => {
    const { api, asked } = scripted(action('succeeded'));
    expect((await waitForVolumeAction(api, VOL, action('running'), { intervalMs: 1 })).status).toBe('succeeded');
    expect(asked()).toBe(1);
    const done = action('failed', { code: 'unavailable', message: 'no answer' });
    const unasked = scripted(action('running'));
    expect(await waitForVolumeAction(unasked.api, VOL, done)).toBe(done);
    expect(unasked.asked()).toBe(0);
  });

  it('gives up with the last state of the action', async () => {
    const error = await waitForVolumeAction(scripted(action('running')).api, VOL, ACT, { timeoutMs: 30, intervalMs: 5 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VolumeActionTimeoutError);
    expect((error as VolumeActionTimeoutError).action.status).toBe('running');
    expect((error as Error).message).toBe(`Volume action ${ACT} (attach of volume ${VOL}) still running after 30 ms`);
  });

  it('waits out a 429 and throws any other error answer', async () => {
    const limited = new Response('{"code":"rate_limited","status":429,"detail":"slow down"}', {
      status: 429,
      headers: { 'Retry-After': '0', 'Content-Type': 'application/problem+json' },
    });
    expect((await waitForVolumeAction(scripted(limited, action('succeeded')).api, VOL, ACT, { intervalMs: 1 })).status).toBe('succeeded');

    const missing = new Response('{"code":"not_found","status":404,"detail":"Action not found."}', {
      status: 404,
      headers: { 'Content-Type': 'application/problem+json' },
    });
    const error = await waitForVolumeAction(scripted(missing).api, VOL, ACT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostingApiError);
    expect((error as HostingApiError).code).toBe('not_found');
  });
});

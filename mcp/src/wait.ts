import {
  type Firewall,
  type InstanceAction,
  type VolumeAction,
  waitForAction,
  waitForFirewall,
  waitForVolumeAction,
} from '@hosting-account/sdk';
import type { ToolContext } from './tool';

/**
 * Runs a wait, telling the client how it goes with `notifications/progress` when the call carried
 * a progress token (one each poll: progress counts up, as MCP wants it to rise every time, and the
 * message says how long it has been `state()`, for an action its own `40% copying the disk`).
 * Cancelling the call stops the wait, not what it waits for.
 */
async function reporting<T>(
  label: string,
  state: () => string,
  wait: () => Promise<T>,
  outcome: (done: T) => string,
  { extra, pollMs }: ToolContext,
): Promise<T> {
  const token = extra._meta?.progressToken;
  const started = Date.now();
  let progress = 0;
  const report = (message: string) =>
    token === undefined
      ? Promise.resolve()
      : extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } })
          .catch(() => undefined);
  await report(`${label}: ${state()}`);
  const ticker = setInterval(() => void report(`${label}: ${state()} for ${Math.round((Date.now() - started) / 1000)} s`), pollMs);
  try {
    const done = await wait();
    await report(`${label}: ${outcome(done)}`);
    return done;
  } finally {
    clearInterval(ticker);
  }
}

/** Where a running action is: `running, 40% copying the disk`. */
const whereActionIs = ({ progress, step }: { progress: number; step: string | null }) => `running, ${progress}%${step ? ` ${step}` : ''}`;

/** Waits for a VPS action to finish, with progress notifications that carry its progress and step. */
export function waitWithProgress(action: InstanceAction, timeoutSeconds: number, context: ToolContext): Promise<InstanceAction> {
  let last = action;
  const wait = () =>
    waitForAction(context.api, action.serviceId, action.id, {
      timeoutMs: timeoutSeconds * 1000,
      intervalMs: context.pollMs,
      signal: context.extra.signal,
      onPoll: (polled) => (last = polled),
    });
  return reporting(
    `${action.type} of ${action.serviceId}`,
    () => whereActionIs(last),
    wait,
    (done) => done.status,
    context,
  );
}

/** Waits for a volume's attach, detach or resize to finish, with progress notifications. */
export function waitForVolumeWithProgress(action: VolumeAction, timeoutSeconds: number, context: ToolContext): Promise<VolumeAction> {
  let last = action;
  const wait = () =>
    waitForVolumeAction(context.api, action.serviceId, action, {
      timeoutMs: timeoutSeconds * 1000,
      intervalMs: context.pollMs,
      signal: context.extra.signal,
      onPoll: (polled) => (last = polled),
    });
  return reporting(
    `${action.type} of volume ${action.serviceId}`,
    () => whereActionIs(last),
    wait,
    (done) => done.status,
    context,
  );
}

/** Waits until a firewall's rules are enforced on every VPS it is applied to (or on `serviceIds`), with progress notifications. */
export function waitForFirewallWithProgress(
  firewall: Firewall,
  serviceIds: string[] | undefined,
  timeoutSeconds: number,
  context: ToolContext,
): Promise<Firewall> {
  const wait = () =>
    waitForFirewall(context.api, firewall.id, {
      serviceIds,
      timeoutMs: timeoutSeconds * 1000,
      intervalMs: context.pollMs,
      signal: context.extra.signal,
    });
  return reporting(
    `firewall ${firewall.id}`,
    () => 'pending',
    wait,
    () => 'applied',
    context,
  );
}

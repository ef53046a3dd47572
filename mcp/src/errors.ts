import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ActionTimeoutError, FirewallTimeoutError, HostingApiError, VolumeActionTimeoutError } from '@hosting-account/sdk';

/** What an agent acts on: the API's problem `code` and `detail`, and when to retry after a 429. */
export interface ToolProblem {
  /** The API's HTTP status; absent when the tool itself gave up (a failed or timed-out action). */
  status?: number;
  code: string;
  detail: string;
  requestId?: string;
  retryAfterSeconds?: number;
  errors?: { field: string; message: string }[];
}

/** A tool that could not do its job for a reason of its own (no API error): a failed or timed-out action. */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

/**
 * A tool error (`isError`), not a protocol error: the agent reads it and decides. The first line
 * is for people, the second the problem as JSON. No structuredContent: a client checks that
 * against the tool's output schema, which describes success.
 */
export function toolError(problem: ToolProblem): CallToolResult {
  const retry = problem.retryAfterSeconds !== undefined ? ` Retry after ${problem.retryAfterSeconds} s.` : '';
  return {
    isError: true,
    content: [
      { type: 'text', text: `${problem.code}: ${problem.detail}${retry}` },
      { type: 'text', text: JSON.stringify({ error: problem }) },
    ],
  };
}

export function problemOf(error: unknown): ToolProblem | null {
  if (error instanceof HostingApiError) {
    return {
      status: error.status,
      code: error.code,
      detail: error.problem.detail,
      ...(error.requestId ? { requestId: error.requestId } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
      ...(error.errors.length ? { errors: error.errors.map(({ field, message }) => ({ field, message })) } : {}),
    };
  }
  if (error instanceof ActionTimeoutError)
    return { code: 'action_timeout', detail: `${error.message}; it goes on: check it later with vps_action_get.` };
  if (error instanceof VolumeActionTimeoutError)
    return { code: 'action_timeout', detail: `${error.message}; it goes on: check it later with volume_action_get.` };
  if (error instanceof FirewallTimeoutError) {
    // Not the error's message: it quotes the firewall's name, which the customer wrote and tool errors do not fence.
    const which = error.waitingFor.map((a) => `${a.serviceId} (${a.status})`).join(', ');
    return {
      code: 'firewall_timeout',
      detail: `Firewall ${error.firewall.id} is not enforced yet on ${which}; the API goes on trying: check it later with firewall_get.`,
    };
  }
  if (error instanceof ToolFailure) return { code: error.code, detail: error.detail };
  return null;
}

import { CommanderError } from 'commander';
import { ActionTimeoutError, FirewallTimeoutError, HostingApiError, VolumeActionTimeoutError } from '@hosting-account/sdk';
import { EXIT_API_ERROR, EXIT_USAGE, NotFoundError, UsageError } from './errors';
import { ApiUnreachableError } from './unreachable';

/**
 * An error as hostctl reports it: `code`, `detail` and the HTTP `status` (null when no answer of
 * the API is behind it), the same whether printed as text or, with `-o json`, as one JSON object.
 */
export interface Failure {
  exitCode: number;
  code: string;
  status: number | null;
  detail: string;
  /** Lines under the detail in text, e.g. the field errors and the request id. */
  textLines: string[];
  /** More members of the JSON object: the API's whole problem, a hint. */
  extra: Record<string, unknown>;
}

/** Where the credentials of the failed call came from, to name `HOSTCTL_TOKEN` when a token is refused. */
export interface FailureContext {
  credentialSource?: string;
}

export function describeFailure(error: unknown, context: FailureContext = {}): Failure {
  if (error instanceof CommanderError) {
    return local(EXIT_USAGE, 'usage', error.message.replace(/^error: /, ''));
  }
  if (error instanceof UsageError) return local(EXIT_USAGE, 'usage', error.message);
  if (error instanceof NotFoundError) return local(EXIT_API_ERROR, 'not_found', error.message);
  if (error instanceof HostingApiError) return apiFailure(error, context);
  if (error instanceof ApiUnreachableError) {
    return {
      ...local(EXIT_API_ERROR, 'unreachable', error.message),
      textLines: [error.hint],
      extra: { url: error.url, hint: error.hint.trim() },
    };
  }
  if (error instanceof ActionTimeoutError) return local(EXIT_API_ERROR, 'timeout', error.message);
  if (error instanceof VolumeActionTimeoutError) {
    const hint = `The action goes on; "hostctl volume get ${error.action.serviceId}" shows the volume's state.`;
    return { ...local(EXIT_API_ERROR, 'timeout', error.message), textLines: [`  ${hint}`], extra: { hint } };
  }
  if (error instanceof FirewallTimeoutError) {
    const hint = `The API goes on trying; "hostctl firewall get ${error.firewall.name}" shows each VPS's status.`;
    return { ...local(EXIT_API_ERROR, 'timeout', error.message), textLines: [`  ${hint}`], extra: { hint } };
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { failureCode?: string }).failureCode ?? 'error';
  return local(EXIT_API_ERROR, code, `${message}${cause?.code ? ` (${cause.code})` : cause?.message ? ` (${cause.message})` : ''}`);
}

function local(exitCode: number, code: string, detail: string): Failure {
  return { exitCode, code, status: null, detail, textLines: [], extra: {} };
}

function apiFailure(error: HostingApiError, context: FailureContext): Failure {
  const hint =
    error.status === 401 && context.credentialSource === 'HOSTCTL_TOKEN'
      ? "The token comes from HOSTCTL_TOKEN, which wins over the context's credentials: unset it, or set it to a valid API key or access token."
      : undefined;
  return {
    exitCode: EXIT_API_ERROR,
    code: error.code,
    status: error.status,
    detail: error.problem.detail,
    textLines: [
      ...error.errors.map((e) => `  ${e.field}: ${e.message}`),
      `  status: ${error.status}`,
      `  code: ${error.code}`,
      `  request id: ${error.requestId ?? '-'}`,
      ...(hint ? [`  ${hint}`] : []),
    ],
    extra: { ...error.problem, ...(hint ? { hint } : {}) },
  };
}

import { HttpException } from '@nestjs/common';

export type ProblemCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'insufficient_scope'
  | 'insufficient_role'
  | 'no_account'
  | 'last_owner'
  | 'already_member'
  | 'invitation_for_another_address'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'invalid_state'
  | 'action_in_progress'
  | 'ticket_closed'
  | 'duplicate_key'
  | 'email_taken'
  | 'quota_exceeded'
  | 'attachment_invalid'
  | 'attachment_in_use'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_progress'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable'
  | 'hypervisor_unavailable'
  | 'no_capacity'
  | 'guest_agent_unavailable'
  | 'metrics_unavailable'
  | 'invalid_credentials'
  | 'invalid_code'
  | 'invalid_mfa_token'
  | 'mfa_enabled'
  | 'mfa_not_enabled'
  | 'mfa_not_set_up'
  | 'invalid_token'
  | 'already_verified'
  | 'email_unverified'
  | 'unsupported_network_mode'
  | 'firewall_in_use'
  | 'duplicate_name'
  | 'volume_in_use'
  | 'region_mismatch'
  | 'zone_exists'
  | 'dns_unavailable';

export interface FieldError {
  field: string;
  message: string;
}

export const PROBLEM_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The URI reference of a code's problem type: a page that says what it means and what to do (`/problems/invalid-state`). */
export function problemTypeUri(code: ProblemCode): string {
  return `/problems/${code.replace(/_/g, '-')}`;
}

/** An error a client can act on; the filter writes it as application/problem+json (RFC 9457). */
export class Problem extends HttpException {
  constructor(
    status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail, status);
  }

  static invalidInput(detail: string, errors?: FieldError[]): Problem {
    return new Problem(400, 'invalid_input', detail, errors);
  }

  static unauthorized(detail = 'A valid bearer token is required.'): Problem {
    return new Problem(401, 'unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer' });
  }

  static insufficientScope(scope: string): Problem {
    return new Problem(403, 'insufficient_scope', `This operation needs an API key with the "${scope}" scope.`, undefined, {
      'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
    });
  }

  static insufficientRole(role: string): Problem {
    return new Problem(403, 'insufficient_role', `This operation needs the "${role}" role on this account (or a higher one).`);
  }

  static noAccount(): Problem {
    return new Problem(
      403,
      'no_account',
      'This login is not a member of the account its token is for: switch to one of its accounts (POST /api/auth/switch-account).',
    );
  }

  /** Against account pre-hijacking: an address nobody has confirmed may not hand out lasting access. */
  static emailUnverified(what: string): Problem {
    return new Problem(
      403,
      'email_unverified',
      `Confirm the account's email address before ${what} (POST /api/auth/email/resend mails a new link).`,
    );
  }

  static notFound(resource = 'Resource'): Problem {
    return new Problem(404, 'not_found', `${resource} not found.`);
  }

  static conflict(code: ProblemCode, detail: string): Problem {
    return new Problem(409, code, detail);
  }

  static rateLimited(retryAfterSeconds: number): Problem {
    return new Problem(429, 'rate_limited', `Too many requests. Retry in ${retryAfterSeconds} seconds.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    });
  }

  static unavailable(detail = 'The service is temporarily unavailable. Retry shortly.'): Problem {
    return new Problem(503, 'unavailable', detail, undefined, { 'Retry-After': '1' });
  }
}

import { ProblemCode } from './problem';

export interface ProblemCodeInfo {
  /** The statuses the code comes with (invalid_code: 400 on the 2FA routes, 401 at the login step). */
  statuses: number[];
  /** What happened, as the document and the /problems pages say it. */
  meaning: string;
  /** What a client (a dashboard, a script) should do about it. */
  action: string;
}

/**
 * Every `code` of a problem response, with its meaning: the source of the operations' error
 * descriptions and `code` enums in the OpenAPI document, and of the /problems/<code> pages.
 */
export const PROBLEM_CODES: Record<ProblemCode, ProblemCodeInfo> = {
  invalid_input: {
    statuses: [400],
    meaning: 'A parameter, header or the body is malformed or out of range; `errors` names each field.',
    action: 'Show `errors[].message` beside `errors[].field`; do not retry unchanged.',
  },
  invalid_code: {
    statuses: [400, 401],
    meaning:
      'The TOTP code or recovery code is wrong or was already used (401 at the login step, where five wrong codes end the mfaToken).',
    action: 'Ask for a new code (the next one the app shows); at the login step, after `invalid_mfa_token`, log in again.',
  },
  invalid_token: {
    statuses: [400],
    meaning: 'The token of a mailed link (password reset, email confirmation) is invalid, expired or already used.',
    action: 'Say the link no longer works and offer to mail a new one (`POST /api/auth/password/forgot`, `POST /api/auth/email/resend`).',
  },
  attachment_invalid: {
    statuses: [400],
    meaning: 'An attachment id is not of this account, was never uploaded, or is larger than declared.',
    action: 'Upload the file again through a new presigned URL and send its id.',
  },
  unauthorized: {
    statuses: [401],
    meaning:
      'The bearer token is missing, invalid, expired or revoked (on `POST /api/auth/refresh`: the refresh token is invalid, expired or already used).',
    action: 'Refresh the access token once (`POST /api/auth/refresh`); if that fails too, send the user to the login page.',
  },
  invalid_credentials: {
    statuses: [401],
    meaning: 'The email or password is incorrect (the same answer for an unknown email).',
    action: 'Say "email or password incorrect" without saying which; offer the password reset.',
  },
  invalid_mfa_token: {
    statuses: [401],
    meaning: 'The mfaToken of the second login step is invalid, expired (5 minutes) or used up (by a login or five wrong codes).',
    action: 'Start again at `POST /api/auth/login` with the email and password.',
  },
  insufficient_scope: {
    statuses: [403],
    meaning: 'The API key lacks the scope the operation needs (`read` for GET, `write` otherwise), or would grant more than it has.',
    action: 'Use a key with the scope named in `detail` and `WWW-Authenticate`, or an access token.',
  },
  insufficient_role: {
    statuses: [403],
    meaning: "The member's role on this account does not allow the operation (docs/roles.md); `detail` names the role it needs.",
    action: 'Ask an owner or admin of the account for that role, or hide the control for this role.',
  },
  no_account: {
    statuses: [403],
    meaning: 'The login is no longer a member of the account its token is for (it was removed or left).',
    action: "List the login's accounts (`GET /api/auth/me`) and switch to one (`POST /api/auth/switch-account`).",
  },
  invitation_for_another_address: {
    statuses: [403],
    meaning: "The invitation was sent to another address than the signed-in login's confirmed one.",
    action: 'Sign in as the invited address (register it if needed, confirm it), then accept the invitation.',
  },
  forbidden: {
    statuses: [403],
    meaning:
      'Not allowed with this credential: the operation needs an access token from a login (not an API key), or a new key would outlive the key creating it.',
    action: 'Sign in (`POST /api/auth/login`) and call it with the access token; for keys, set an earlier `expiresAt`.',
  },
  email_unverified: {
    statuses: [403],
    meaning: "The account's email address is not confirmed yet; API keys, webhooks and two-factor sign-in need it.",
    action: 'Ask the user to open the confirmation mail; `POST /api/auth/email/resend` mails a new link.',
  },
  not_found: {
    statuses: [404],
    meaning: "No such resource in this account (another account's resources are 404 too), or no such route.",
    action: 'Refresh the list the id came from; do not retry.',
  },
  method_not_allowed: {
    statuses: [405],
    meaning: 'Reserved: no operation answers it today (an unknown method on a path is a 404 `not_found`).',
    action: 'Check the method against the document.',
  },
  invalid_state: {
    statuses: [409],
    meaning:
      'The resource is in a state that does not allow this (a suspended service, a stopped VPS for a console, a disabled webhook endpoint, ...); `detail` says which.',
    action: 'Show `detail`; reload the resource, change its state first, then retry.',
  },
  action_in_progress: {
    statuses: [409],
    meaning: 'Another power action on this VPS is still running.',
    action: 'Wait for the running action (`GET .../instance/actions/{actionId}`), then retry.',
  },
  ticket_closed: {
    statuses: [409],
    meaning: 'The ticket is closed and takes no more replies.',
    action: 'Open a new ticket.',
  },
  duplicate_key: {
    statuses: [409],
    meaning: 'The same SSH public key is already in the account.',
    action: 'Use the existing key (its fingerprint is in `detail`).',
  },
  email_taken: {
    statuses: [409],
    meaning: 'An account with this email already exists (sign-up).',
    action: 'Offer to log in or to reset the password instead.',
  },
  last_owner: {
    statuses: [409],
    meaning: 'The account would be left without an owner: its last owner cannot leave, be removed or be given another role.',
    action: 'Make another member an owner first.',
  },
  already_member: {
    statuses: [409],
    meaning: 'The address is already a member of this account, or has a pending invitation to it.',
    action: "Change the member's role instead, or delete the pending invitation first.",
  },
  quota_exceeded: {
    statuses: [409],
    meaning: 'A per-account limit is reached (API keys, SSH keys, webhook endpoints, open consoles); `detail` names it.',
    action: 'Delete or revoke one first, then retry.',
  },
  attachment_in_use: {
    statuses: [409],
    meaning: 'An attachment is already part of a message.',
    action: 'Upload the file again for this message.',
  },
  mfa_enabled: {
    statuses: [409],
    meaning: 'Two-factor sign-in is already on.',
    action: 'Show it as on; to change the authenticator, disable it first (`POST /api/auth/2fa/disable`).',
  },
  mfa_not_enabled: {
    statuses: [409],
    meaning: 'Two-factor sign-in is not on, so there is nothing to disable.',
    action: 'Show it as off.',
  },
  mfa_not_set_up: {
    statuses: [409],
    meaning: 'No two-factor setup is pending: enable needs `POST /api/auth/2fa/setup` first.',
    action: 'Call setup, show its QR code, then enable with a code from the app.',
  },
  already_verified: {
    statuses: [409],
    meaning: 'The email address is already confirmed.',
    action: 'Show the address as confirmed.',
  },
  idempotency_key_in_progress: {
    statuses: [409],
    meaning: 'A request with this Idempotency-Key is still being processed.',
    action: 'Retry the same request with the same key a moment later; it then replays the first answer.',
  },
  payload_too_large: {
    statuses: [413],
    meaning: 'The request body is larger than 1 MiB.',
    action: 'Send less (attachments go through presigned uploads, not the JSON body).',
  },
  unsupported_media_type: {
    statuses: [415],
    meaning: 'The request body is not JSON (`Content-Type: application/json`), or its encoding or charset is not supported.',
    action: 'Send the body as `application/json` in UTF-8.',
  },
  idempotency_key_reused: {
    statuses: [422],
    meaning: 'This Idempotency-Key was used within 24 hours with a different request, or by another API key or session of the account.',
    action: 'Use a new key for a new request; reuse a key only to retry the very same request with the same credential.',
  },
  rate_limited: {
    statuses: [429],
    meaning: 'Too many requests (or failed attempts) in the window of one of the limits.',
    action: 'Wait `Retry-After` seconds, then retry; show a countdown to a person.',
  },
  internal_error: {
    statuses: [500],
    meaning: 'An unexpected error; nothing internal is shown.',
    action: 'Retry later; if it persists, quote `requestId` to support.',
  },
  unavailable: {
    statuses: [503],
    meaning: 'A dependency (the database, the storage gateway) cannot serve now.',
    action: 'Retry after `Retry-After` (safe for GETs and for POSTs with an Idempotency-Key).',
  },
  hypervisor_unavailable: {
    statuses: [503],
    meaning: 'The hypervisor of this VPS cannot be reached.',
    action: 'Retry in a minute; the service itself is unchanged.',
  },
  unsupported_network_mode: {
    statuses: [409],
    meaning: 'The VPS is reached through a forwarded port (user networking): no firewall can be enforced at its hypervisor.',
    action: 'Filter inside the guest (nftables, ufw); cloud firewalls apply to VPSes with public addresses (bridge mode).',
  },
  firewall_in_use: {
    statuses: [409],
    meaning: 'The firewall is still applied to one or more VPSes.',
    action: 'Remove it from them (POST /api/firewalls/{id}/remove) first; appliedTo lists them.',
  },
  duplicate_name: {
    statuses: [409],
    meaning: 'The account already has a resource of this kind with this name.',
    action: 'Choose another name, or change the existing one.',
  },
  volume_in_use: {
    statuses: [409],
    meaning: 'The volume is attached to a VPS (or being attached or detached): it is on one VPS at a time.',
    action: 'Detach it first (POST /api/services/{id}/volume/detach) and wait for the action to succeed.',
  },
  region_mismatch: {
    statuses: [409],
    meaning: 'The volume and the VPS are in different regions; a volume attaches only to a VPS of its own region.',
    action: "Choose a VPS in the volume's region (volume.region), or a volume in the VPS's region.",
  },
  zone_exists: {
    statuses: [409],
    meaning:
      'A DNS zone of this name, or one containing it or within it, is already held on these nameservers (by this account or another).',
    action:
      'Delete your own zone of that name first; a name another customer holds is theirs until they delete it (ask support if it is your domain).',
  },
  dns_unavailable: {
    statuses: [503],
    meaning: 'The authoritative DNS servers did not answer in time; nothing was changed.',
    action: 'Retry after a few seconds (with the same Idempotency-Key where the route takes one).',
  },
  no_capacity: {
    statuses: [409],
    meaning: 'No enabled host of the region has room for the VPS; nothing was made.',
    action: 'Operator: add a host (host:add) or enable one (host:set); then provision again.',
  },
  guest_agent_unavailable: {
    statuses: [409],
    meaning: "The VPS's QEMU guest agent does not answer, so nothing can be set inside the guest (a root password).",
    action: 'Install and start qemu-guest-agent in the VPS (over SSH or the console), then retry.',
  },
  metrics_unavailable: {
    statuses: [503],
    meaning: 'The metrics system of this VPS (Prometheus) did not answer in time, or none is configured for its region.',
    action: 'Retry after `Retry-After`; draw the graphs as "no data" meanwhile. The VPS itself is unaffected.',
  },
};

/** The codes a status means on its own, for `@ApiProblems(404)` and the responses every operation has. */
export const USUAL_CODES: Partial<Record<number, ProblemCode[]>> = {
  400: ['invalid_input'],
  401: ['unauthorized'],
  403: ['insufficient_scope'],
  404: ['not_found'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['idempotency_key_reused'],
  429: ['rate_limited'],
  500: ['internal_error'],
  503: ['unavailable'],
};

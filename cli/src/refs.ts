import { HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { findRef, RefKind, resolveRef } from './ref';

type SshKey = Schemas['SshKeyResponse'];
type Ticket = Schemas['TicketResponse'];
type Image = Schemas['ImageResponse'];

export const SSH_KEY: RefKind<SshKey> = {
  kind: 'SSH key',
  listedBy: 'hostctl ssh-keys list',
  names: (k) => [k.name, k.fingerprint],
  describe: (k) => k.fingerprint,
};
export const TICKET: RefKind<Ticket> = {
  kind: 'ticket',
  listedBy: 'hostctl tickets list',
  normalise: (reference) => reference.toUpperCase(),
  names: (t) => [t.reference],
};
export const IMAGE: RefKind<Image> = {
  kind: 'image',
  listedBy: 'hostctl images list',
  names: (i) => [i.slug, i.name],
  describe: (i) => `${i.type}, ${i.slug}, ${i.status}`,
};

/** An SSH key by its id, name or fingerprint. */
export const resolveSshKeyId = (api: HostingClient, reference: string) =>
  resolveRef(reference, () => listAll(api, '/api/ssh-keys'), SSH_KEY);

/** A ticket by its id or reference (`T-000001`, any case). */
export const resolveTicketId = (api: HostingClient, reference: string) =>
  resolveRef(reference, () => listAll(api, '/api/support/tickets'), TICKET);

/** An image by its id, slug or name; `type` narrows it to snapshots (or system images). */
export const resolveImageId = (api: HostingClient, reference: string, type?: Image['type']) =>
  resolveRef(reference, async () => (await listAll(api, '/api/images')).filter((i) => !type || i.type === type), IMAGE);

type ApiKey = Schemas['ApiKeyResponse'];
export const API_KEY: RefKind<ApiKey> = {
  kind: 'API key',
  listedBy: 'hostctl auth token list',
  names: (k) => [k.name, k.prefix],
  describe: (k) => `${k.prefix}, created ${k.createdAt}`,
};

/** An API key by its id, name or prefix. */
export const resolveApiKeyId = (api: HostingClient, reference: string) =>
  resolveRef(reference, () => listAll(api, '/api/auth/api-keys'), API_KEY);

type Member = Schemas['MemberResponse'];
export const MEMBER: RefKind<Member> = {
  kind: 'member',
  listedBy: 'hostctl members list',
  normalise: (reference) => reference.toLowerCase(),
  names: (m) => [m.email],
};

/** A member of the account by its member id or email (any case). */
export const resolveMemberId = (api: HostingClient, reference: string) =>
  resolveRef(reference, () => listAll(api, '/api/account/members'), MEMBER);

/** The member itself: the API has no route for one member, so it is found in the list. */
export const findMember = async (api: HostingClient, reference: string): Promise<Member> =>
  findRef(await listAll(api, '/api/account/members'), reference, MEMBER);

type Invitation = Schemas['InvitationResponse'];
export const INVITATION: RefKind<Invitation> = {
  kind: 'pending invitation',
  listedBy: 'hostctl invitations list',
  normalise: (reference) => reference.toLowerCase(),
  names: (i) => [i.email],
};

/** A pending invitation by its id or the address invited (an address has one pending invitation at most). */
export const resolveInvitationId = (api: HostingClient, reference: string) =>
  resolveRef(reference, () => listAll(api, '/api/account/invitations'), INVITATION);

/** One of the login's accounts as `GET /api/auth/me` lists them, with `id` for the resolver. */
export type LoginAccount = Schemas['LoginAccountResponse'] & { id: string };
export const ACCOUNT: RefKind<LoginAccount> = {
  kind: 'account',
  listedBy: 'hostctl accounts list',
  among: 'among yours',
  names: (a) => [a.name],
  describe: (a) => a.role,
};

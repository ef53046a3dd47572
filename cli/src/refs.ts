import { HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { RefKind, resolveRef } from './ref';

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

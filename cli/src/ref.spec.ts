import { NotFoundError, UsageError } from './errors';
import { findRef, pickRef, RefKind } from './ref';
import { ACCOUNT, IMAGE, MEMBER, TICKET } from './refs';

describe('pickRef', () => {
  const KEY: RefKind<{ id: string; name: string; fingerprint: string }> = {
    kind: 'SSH key',
    listedBy: 'hostctl ssh-keys list',
    names: (k) => [k.name, k.fingerprint],
    describe: (k) => k.fingerprint,
  };
  const laptop = { id: '11111111-1111-4111-8111-111111111111', name: 'laptop', fingerprint: 'SHA256:aaa' };
  const ci = { id: '22222222-2222-4222-8222-222222222222', name: 'ci runner', fingerprint: 'SHA256:bbb' };
  const ci2 = { id: '33333333-3333-4333-8333-333333333333', name: 'ci runner', fingerprint: 'SHA256:ccc' };

  it('takes an id as it is, without looking at the list', () => {
    expect(pickRef([], ci.id, KEY)).toBe(ci.id);
  });

  it('takes any of the names the kind gives its things', () => {
    expect(pickRef([laptop, ci], 'ci runner', KEY)).toBe(ci.id);
    expect(pickRef([laptop, ci], 'SHA256:aaa', KEY)).toBe(laptop.id);
  });

  it('says where names are listed when nothing has the name (exit 1)', () => {
    expect(() => pickRef([laptop], 'desk', KEY)).toThrow(NotFoundError);
    expect(() => pickRef([laptop], 'desk', KEY)).toThrow(
      'no SSH key named "desk" in this account ("hostctl ssh-keys list" shows names and ids)',
    );
  });

  it('lists the matches and asks for the id when several have the name (exit 2)', () => {
    expect(() => pickRef([laptop, ci, ci2], 'ci runner', KEY)).toThrow(UsageError);
    expect(() => pickRef([laptop, ci, ci2], 'ci runner', KEY)).toThrow(
      `2 SSH keys are named "ci runner": ${ci.id} (SHA256:bbb), ${ci2.id} (SHA256:ccc); give the id instead`,
    );
  });

  it('finds a ticket by its reference, in either case', () => {
    const ticket = { id: laptop.id, reference: 'T-000001' } as Parameters<typeof TICKET.names>[0];
    expect(pickRef([ticket], 'T-000001', TICKET)).toBe(laptop.id);
    expect(pickRef([ticket], 't-000001', TICKET)).toBe(laptop.id);
  });

  it('finds an image by its slug or its name', () => {
    const image = { id: ci.id, slug: 'snapshot-1a2b', name: 'before-upgrade', type: 'snapshot', status: 'available' } as Parameters<
      typeof IMAGE.names
    >[0];
    expect(pickRef([image], 'snapshot-1a2b', IMAGE)).toBe(ci.id);
    expect(pickRef([image], 'before-upgrade', IMAGE)).toBe(ci.id);
  });

  it('finds a member by email in any case, and one of your accounts by its name, saying where it looked', () => {
    const grace = { id: ci.id, email: 'grace@example.com', name: 'Grace', role: 'admin', joinedAt: '2026-01-01T00:00:00.000Z' } as const;
    expect(findRef([grace], 'Grace@Example.com', MEMBER)).toBe(grace);
    const acme = { id: laptop.id, accountId: laptop.id, name: 'Acme Ltd', role: 'member' } as const;
    expect(findRef([acme], 'Acme Ltd', ACCOUNT)).toBe(acme);
    expect(() => findRef([acme], 'Initech', ACCOUNT)).toThrow(
      'no account named "Initech" among yours ("hostctl accounts list" shows names and ids)',
    );
  });

  it('refuses an id that is not in the list it reads (exit 1), where pickRef takes any id', () => {
    expect(() => findRef([], ci.id, MEMBER)).toThrow(NotFoundError);
    expect(() => findRef([], ci.id, MEMBER)).toThrow(`no member ${ci.id} in this account ("hostctl members list" shows names and ids)`);
  });
});

import type { Role } from '@app/core';

/** A role as a sentence says it: "joined as a read-only member". */
export const ROLE_NAMES: Record<Role, string> = {
  owner: 'an owner',
  admin: 'an admin',
  member: 'a member',
  read_only: 'a read-only member',
};

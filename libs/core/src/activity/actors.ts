import { userInfo } from 'node:os';
import type { Actor } from './activity-log';

/** The account holder, named by their display name (or email): for sign-in and other public routes. */
export function accountActor(account: { id: string; name?: string | null; email: string }): Actor {
  return { type: 'account', id: account.id, name: account.name || account.email, memberId: null, email: account.email, keyId: null };
}

/** The operator running a CLI command on the provider's side: the OS user, or the name they give. */
export function staffActor(name?: string | null): Actor {
  let user = 'operator';
  try {
    user = userInfo().username || user;
  } catch {
    // No passwd entry (some containers): keep the generic name.
  }
  return { type: 'staff', id: user.slice(0, 100), name: (name?.trim() || user).slice(0, 200) };
}

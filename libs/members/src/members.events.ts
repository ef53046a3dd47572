import { declareActivityActions } from '@app/core';

export const MEMBER_ACTIONS = declareActivityActions(15, [
  'member.invite',
  'member.invitation_delete',
  'member.join',
  'member.role_change',
  'member.remove',
  'member.leave',
] as const);

declare module '@app/core' {
  interface AreaEvents {
    members: { actions: (typeof MEMBER_ACTIONS)[number]; events: never };
  }
}

import { declareActivityActions } from '@app/core';

export const SSH_KEY_ACTIONS = declareActivityActions(40, ['ssh_key.create', 'ssh_key.update', 'ssh_key.delete'] as const);

declare module '@app/core' {
  interface AreaEvents {
    sshKeys: { actions: (typeof SSH_KEY_ACTIONS)[number]; events: never };
  }
}

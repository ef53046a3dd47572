import { CreateSshKeys1764000000500 } from './1764000000500-create-ssh-keys';

export const sshKeysMigrations = [CreateSshKeys1764000000500];

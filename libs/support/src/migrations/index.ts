import { CreateSupport1764000000600 } from './1764000000600-create-support';

export const supportMigrations = [CreateSupport1764000000600];

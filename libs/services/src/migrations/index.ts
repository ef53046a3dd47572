import { CreateServices1764000000400 } from './1764000000400-create-services';

export const servicesMigrations = [CreateServices1764000000400];

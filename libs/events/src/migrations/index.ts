import { CreateActivityEvents1764000001700 } from './1764000001700-create-activity-events';

export const eventsMigrations = [CreateActivityEvents1764000001700];

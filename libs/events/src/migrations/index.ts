import { ActivityActorMembers1764000004830 } from './1764000004830-activity-actor-members';
import { CreateActivityEvents1764000001700 } from './1764000001700-create-activity-events';
import { ActivityCounts1764000002600 } from './1764000002600-activity-counts';

export const eventsMigrations = [CreateActivityEvents1764000001700, ActivityCounts1764000002600, ActivityActorMembers1764000004830];

import { ApiKeyMembers1764000004820 } from './1764000004820-api-key-members';
import { CreateApiKeys1764000000200 } from './1764000000200-create-api-keys';
import { ApiKeyChangeNotices1764000002930 } from './1764000002930-api-key-change-notices';

export const apiKeysMigrations = [CreateApiKeys1764000000200, ApiKeyChangeNotices1764000002930, ApiKeyMembers1764000004820];

import { EntityManager } from 'typeorm';

export interface DemoContext {
  accountId: string;
  manager: EntityManager;
}

/**
 * Each area adds its own demo data by providing a subclass in its module; the app finds them
 * all at start (DiscoveryService) and runs them in `order`, all in one transaction.
 */
export abstract class DemoSeeder {
  abstract readonly order: number;
  abstract seed(context: DemoContext): Promise<void>;
}

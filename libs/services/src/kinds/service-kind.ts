import { EntityManager } from 'typeorm';
import type { CatalogProduct } from '@app/products';
import type { ServiceResponse } from '../dto/service.response';
import type { ServicePart } from '../dto/service-parts';
import type { ServiceState } from '../services.repository';
import type { ServiceStatus, ServiceType } from '../service.types';
import type { ProvisionSpec } from './provision-spec';

/** One batch of new services of a kind, inside the provisioner's transaction. */
export interface NewServiceBatch {
  accountId: string;
  ids: string[];
  names: string[];
  status: ServiceStatus;
  product: CatalogProduct;
  spec: ProvisionSpec;
}

/**
 * A kind of service a customer rents (a VPS, object storage): its area implements this port and
 * registers it with ServiceKinds when its module starts. The services area keeps the services row
 * (billing status, ownership, the list) and asks the kind for everything else, so it never tests a
 * service's type (docs/adding-a-module.md, "Adding a service kind").
 */
export abstract class ServiceKind<Prepared = unknown, Part extends object = object> {
  abstract readonly type: ServiceType;

  /** Its part of the service response (declareServicePart beside its summary class, e.g. a VPS's `instance`). */
  abstract readonly part: ServicePart;

  /** The ProvisionSpec options this kind reads (a VPS's `region`, `image`...); the provisioner refuses another kind's. */
  readonly options: readonly string[] = [];

  /** How many of the product's unit one service is (a volume's GiB, when its product prices one GiB); its price is the unit's times this. */
  quantity(_spec: ProvisionSpec, _product: CatalogProduct): number {
    return 1;
  }

  /** Refuses a spec this kind cannot provision, before anything is read (throws ProvisionSpecError). */
  checkSpec(_spec: ProvisionSpec, _count: number): void {}

  /** Inside the provisioner's transaction, before a batch's services rows (they lock the account's counters until COMMIT): what to look up first. */
  prepare(_manager: EntityManager, _batch: NewServiceBatch): Promise<Prepared | undefined> {
    return Promise.resolve(undefined);
  }

  /** Inside the provisioner's transaction, after the batch's services rows: the kind's own rows, and what each new service shows. */
  abstract provision(manager: EntityManager, batch: NewServiceBatch, prepared: Prepared | undefined): Promise<Map<string, Part>>;

  /** After COMMIT of a provisioning: waits for what the spec asked (a VPS's machine, the gateway's user) and updates what the services show. */
  provisioned(_services: ServiceResponse[], _spec: ProvisionSpec): Promise<void> {
    return Promise.resolve();
  }

  /** In a status change's transaction, under the service row lock, before the row becomes `terminated`: ends what the service runs. */
  terminate(_manager: EntityManager, _service: ServiceState): Promise<void> {
    return Promise.resolve();
  }

  /** In a status change's transaction, after the services row changed. */
  statusChanged(_manager: EntityManager, _serviceId: string, _status: ServiceStatus): Promise<void> {
    return Promise.resolve();
  }

  /** After COMMIT of a status change: updates what the service shows once its backend followed. */
  statusSettled(_service: ServiceResponse): Promise<void> {
    return Promise.resolve();
  }

  /** Before one service is shown (GET /api/services/{id}): brings what it shows up to date. */
  refresh(_accountId: string, _serviceId: string): Promise<void> {
    return Promise.resolve();
  }

  /** What the list and the one-service response show of these services (one statement for all); a service without its part is left out. */
  abstract summaries(serviceIds: string[], manager?: EntityManager): Promise<Map<string, Part>>;
}

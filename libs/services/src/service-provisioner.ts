import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, Problem, TransactionRunner } from '@app/core';
import { CatalogProduct, ProductCatalog } from '@app/products';
import { nextDueDate, priceTimes } from './billing';
import { ServiceResponse } from './dto/service.response';
import { ProvisionSpec, ProvisionSpecError } from './kinds/provision-spec';
import { NewServiceBatch } from './kinds/service-kind';
import { ServiceKinds, shown } from './kinds/service-kinds';
import { InsertedService, ServicesRepository } from './services.repository';

export type { ProvisionSpec } from './kinds/provision-spec';

export const MAX_PROVISION_COUNT = 100_000;
const BATCH = 5_000;

/**
 * Creates services for an account (operator command line, demo data, tests): the customer API
 * has no ordering. Prices come from the catalogue; the service's kind writes its own rows in the
 * same transaction. Runs in the caller's transaction if given one.
 */
@Injectable()
export class ServiceProvisioner {
  constructor(
    private readonly catalog: ProductCatalog,
    private readonly tx: TransactionRunner,
    private readonly services: ServicesRepository,
    private readonly kinds: ServiceKinds,
    private readonly activity: ActivityLog,
  ) {}

  async provision(accountId: string, spec: ProvisionSpec, count = 1): Promise<ServiceResponse[]> {
    const out = await this.tx.run((m) => this.provisionIn(m, accountId, spec, count));
    await this.kinds.of(spec.type).provisioned(out, spec);
    return out;
  }

  /** Refuses a spec its kind cannot provision (ProvisionSpecError), before anything is read. */
  checkSpec(spec: ProvisionSpec, count: number): void {
    if (!Number.isInteger(count) || count < 1 || count > MAX_PROVISION_COUNT) {
      throw new ProvisionSpecError('count', `must be from 1 to ${MAX_PROVISION_COUNT}`);
    }
    this.kinds.checkSpec(spec, count);
  }

  /** The same inside the caller's transaction (demo data). */
  async provisionIn(manager: EntityManager, accountId: string, spec: ProvisionSpec, count = 1): Promise<ServiceResponse[]> {
    try {
      this.checkSpec(spec, count);
    } catch (err) {
      if (err instanceof ProvisionSpecError) throw Problem.invalidInput(`${err.message}.`, [{ field: err.field, message: err.reason }]);
      throw err;
    }
    const kind = this.kinds.of(spec.type);
    const product = await this.product(spec, manager);
    const cycle =
      spec.billingCycle ?? (product.prices.some((p) => p.billingCycle === 'monthly') ? 'monthly' : product.prices[0]?.billingCycle);
    const price = product.prices.find((p) => p.billingCycle === cycle);
    if (!price) {
      throw Problem.invalidInput(
        `Product ${product.slug} has no ${cycle ?? ''} price; it has ${product.prices.map((p) => p.billingCycle).join(', ')}.`,
      );
    }
    const servicePrice = priceTimes(price.price, kind.quantity(spec, product));
    const status = spec.status ?? 'active';
    const now = new Date();
    const due = nextDueDate(price.billingCycle, status, spec.createdAt ?? now, now);
    const prefix = spec.name ?? `${product.slug}-${randomBytes(3).toString('hex')}`;
    const out: ServiceResponse[] = [];
    for (let start = 0; start < count; start += BATCH) {
      const ids = Array.from({ length: Math.min(BATCH, count - start) }, () => randomUUID());
      const names = ids.map((_, i) => (count > 1 ? `${prefix}-${start + i + 1}` : prefix));
      const batch: NewServiceBatch = { accountId, ids, names, status, product, spec };
      const prepared = await kind.prepare(manager, batch);
      const rows: InsertedService[] = await this.services.insertMany(manager, {
        ids,
        names,
        accountId,
        productId: product.id,
        type: spec.type,
        status,
        price: servicePrice,
        currency: price.currency,
        billingCycle: price.billingCycle,
        nextDueDate: due,
        createdAt: spec.createdAt ?? null,
      });
      const parts = shown(kind, await kind.provision(manager, batch, prepared));
      if (spec.actor) {
        for (const [i, id] of ids.entries()) {
          await this.activity.record(manager, {
            accountId,
            action: 'service.create',
            entity: { type: 'service', id },
            actor: spec.actor,
            details: { name: names[i], type: spec.type, status, product: product.slug },
          });
        }
      }
      const byId = new Map(rows.map((row) => [row.id, row]));
      ids.forEach((id, i) => {
        const row = byId.get(id)!;
        const service = {
          id,
          product_id: product.id,
          name: names[i],
          type: spec.type,
          status,
          price: servicePrice,
          currency: price.currency,
          billing_cycle: price.billingCycle,
          next_due_date: row.next_due_date,
          created_at: row.created_at,
        };
        out.push(ServiceResponse.fromRow(service, parts.get(id)));
      });
    }
    return out;
  }

  /** A service's price again after its quantity changed (a volume grown): the unit's price of its product and cycle, times `quantity`. */
  reprice(manager: EntityManager, serviceId: string, quantity: number): Promise<void> {
    return this.services.reprice(manager, serviceId, quantity);
  }

  private async product(spec: ProvisionSpec, manager: EntityManager): Promise<CatalogProduct> {
    const product = spec.productSlug
      ? await this.catalog.findBySlug(spec.productSlug, manager)
      : await this.catalog.defaultFor(spec.type, manager);
    if (!product)
      throw Problem.invalidInput(spec.productSlug ? `No product with slug ${spec.productSlug}.` : `No available ${spec.type} product.`);
    if (product.type !== spec.type) throw Problem.invalidInput(`Product ${product.slug} is ${product.type}, not ${spec.type}.`);
    return product;
  }
}

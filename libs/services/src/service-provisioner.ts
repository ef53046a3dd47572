import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Problem, TransactionRunner } from '@app/core';
import { BillingCycle, CatalogProduct, ProductCatalog } from '@app/products';
import { nextDueDate } from './billing';
import { ServiceResponse } from './dto/service.response';
import { isoText } from './services.queries';
import { ServiceStatus, ServiceType, VPS_REGIONS } from './service.types';

export interface ProvisionSpec {
  type: ServiceType;
  /** Default `active`. */
  status?: ServiceStatus;
  /** Default: the smallest available product of the type. */
  productSlug?: string;
  /** Default `monthly` (or the product's first cycle if it has no monthly price). */
  billingCycle?: BillingCycle;
  /** With count > 1, numbered `name-1`, `name-2`...; default `<product slug>-<random>`. */
  name?: string;
  /** VPS only. Default `running` for an active service, `stopped` otherwise. */
  powerState?: 'running' | 'stopped';
  /** VPS only. Default `eu-central`. */
  region?: string;
  /** Default: the time of insertion (one microsecond apart, so the list order is creation order). */
  createdAt?: Date;
}

export const MAX_PROVISION_COUNT = 100_000;
const BATCH = 5_000;
const DOC_V4_NETS = ['192.0.2', '198.51.100', '203.0.113'];

/**
 * Creates services for an account (operator command line, demo data, tests): the customer API
 * has no ordering. Prices come from the catalogue. Runs in the caller's transaction if given one.
 */
@Injectable()
export class ServiceProvisioner {
  constructor(
    private readonly catalog: ProductCatalog,
    private readonly tx: TransactionRunner,
  ) {}

  async provision(accountId: string, spec: ProvisionSpec, count = 1, manager?: EntityManager): Promise<ServiceResponse[]> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_PROVISION_COUNT) {
      throw Problem.invalidInput(`count must be from 1 to ${MAX_PROVISION_COUNT}.`, [{ field: 'count', message: 'out of range' }]);
    }
    if (!manager) return this.tx.run((m) => this.provision(accountId, spec, count, m));
    const product = await this.product(spec, manager);
    const cycle = spec.billingCycle ?? (product.prices.some((p) => p.billingCycle === 'monthly') ? 'monthly' : product.prices[0]?.billingCycle);
    const price = product.prices.find((p) => p.billingCycle === cycle);
    if (!price) {
      throw Problem.invalidInput(`Product ${product.slug} has no ${cycle ?? ''} price; it has ${product.prices.map((p) => p.billingCycle).join(', ')}.`);
    }
    const status = spec.status ?? 'active';
    const now = new Date();
    const due = nextDueDate(price.billingCycle, status, spec.createdAt ?? now, now);
    const prefix = spec.name ?? `${product.slug}-${randomBytes(3).toString('hex')}`;
    const out: ServiceResponse[] = [];
    for (let start = 0; start < count; start += BATCH) {
      const ids = Array.from({ length: Math.min(BATCH, count - start) }, () => randomUUID());
      const names = ids.map((_, i) => (count > 1 ? `${prefix}-${start + i + 1}` : prefix));
      const rows: { id: string; created_at: string; next_due_date: string | null }[] = await manager.query(
        `INSERT INTO services (id, account_id, product_id, name, type, status, price, currency, billing_cycle, next_due_date, created_at)
         SELECT r.id, $3, $4, r.name, $5, $6, $7::numeric, $8, $9, $10::timestamptz, coalesce($11::timestamptz, clock_timestamp())
           FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS r(id, name, n)
          ORDER BY r.n
         RETURNING id, ${isoText('created_at')} AS created_at, ${isoText('next_due_date')} AS next_due_date`,
        [ids, names, accountId, product.id, spec.type, status, price.price, price.currency, price.billingCycle, due, spec.createdAt ?? null],
      );
      const instances = spec.type === 'vps' ? await this.createInstances(manager, ids, spec, status) : new Map();
      const byId = new Map(rows.map((row) => [row.id, row]));
      ids.forEach((id, i) => {
        const row = byId.get(id)!;
        out.push({
          id,
          name: names[i],
          type: spec.type,
          status,
          price: Number(price.price),
          billingCycle: price.billingCycle,
          nextDueDate: row.next_due_date,
          productId: product.id,
          currency: price.currency,
          createdAt: row.created_at,
          instance: instances.get(id) ?? null,
        });
      });
    }
    return out;
  }

  private async product(spec: ProvisionSpec, manager: EntityManager): Promise<CatalogProduct> {
    const product = spec.productSlug ? await this.catalog.findBySlug(spec.productSlug, manager) : await this.catalog.defaultFor(spec.type, manager);
    if (!product) throw Problem.invalidInput(spec.productSlug ? `No product with slug ${spec.productSlug}.` : `No available ${spec.type} product.`);
    if (product.type !== spec.type) throw Problem.invalidInput(`Product ${product.slug} is ${product.type}, not ${spec.type}.`);
    return product;
  }

  private async createInstances(manager: EntityManager, ids: string[], spec: ProvisionSpec, status: ServiceStatus) {
    const powerState = spec.powerState ?? (status === 'active' ? 'running' : 'stopped');
    const region = spec.region ?? VPS_REGIONS[0];
    const ipv4 = ids.map(() => `${DOC_V4_NETS[randomInt(DOC_V4_NETS.length)]}.${randomInt(1, 255)}`);
    const ipv6 = ids.map(() => `2001:db8:${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}::1`);
    await manager.query(
      `INSERT INTO vps_instances (service_id, power_state, region, ipv4, ipv6)
       SELECT id, $2, $3, v4, v6 FROM unnest($1::uuid[], $4::text[], $5::text[]) AS r(id, v4, v6)`,
      [ids, powerState, region, ipv4, ipv6],
    );
    return new Map(ids.map((id, i) => [id, { powerState, ipv4: ipv4[i], ipv6: ipv6[i], region }]));
  }
}

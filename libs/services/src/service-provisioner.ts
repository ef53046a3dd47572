import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, Actor, Problem, TransactionRunner } from '@app/core';
import { BillingCycle, CatalogProduct, ObjectStorageSpecs, ProductCatalog, VpsSpecs } from '@app/products';
import { nextDueDate } from './billing';
import { ServiceResponse } from './dto/service.response';
import { InsertedService, ServicesRepository } from './services.repository';
import type { MachineRecord } from '@app/vps';
import { GuestSetup, InstanceSummary, MachinePlan, MachineProvisioning } from '@app/vps';
import { ObjectStorageLifecycle, quotaOf } from '@app/object-storage';
import { PowerState, publicPowerState, ServiceStatus, ServiceType, VPS_REGIONS } from './service.types';

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
  /**
   * VPS only: also make each VPS's machine on the hypervisor (the operator's command), by a durable
   * job (see `wait`). Demo data and tests leave it off: their VPSes exist only in the database.
   */
  machines?: boolean;
  /** VPS only, count 1: adopt this existing machine (libvirt domain name or UUID) instead. */
  providerRef?: string;
  /** Records each new service in the activity log as made by this actor (the operator's command); demo data and tests record nothing. */
  actor?: Actor;
  /** VPS only: install this image (slug or id) on a root disk of the product's size, with a cloud-init seed. */
  image?: string;
  /** With `image`: the account's keys root logs in with; default all of them. */
  sshKeys?: 'all' | string[];
  /**
   * With `machines`: wait until each machine is made (the provisioning jobs run in this process),
   * and answer with the state it ended in. False: answer at once with `provisioning`; the job
   * queue of the API servers makes them.
   */
  wait?: boolean;
}

export const MAX_PROVISION_COUNT = 100_000;
const BATCH = 5_000;

/**
 * Creates services for an account (operator command line, demo data, tests): the customer API
 * has no ordering. Prices come from the catalogue. Runs in the caller's transaction if given one.
 */
@Injectable()
export class ServiceProvisioner {
  constructor(
    private readonly catalog: ProductCatalog,
    private readonly tx: TransactionRunner,
    private readonly machines: MachineProvisioning,
    private readonly services: ServicesRepository,
    private readonly activity: ActivityLog,
    private readonly guests: GuestSetup,
    private readonly storage: ObjectStorageLifecycle,
  ) {}

  async provision(accountId: string, spec: ProvisionSpec, count = 1): Promise<ServiceResponse[]> {
    const out = await this.tx.run((m) => this.provisionIn(m, accountId, spec, count));
    const vpsIds = out.filter((service) => service.instance).map((service) => service.id);
    const queued = new Set(spec.wait !== false && vpsIds.length ? await this.machines.queued(vpsIds) : []);
    const made = out.filter((service) => queued.has(service.id));
    if (made.length) {
      const ended = await this.machines.finish(made.map((service) => service.id));
      for (const service of made) service.instance!.powerState = publicPowerState(ended.get(service.id)?.powerState ?? 'provisioning');
      const failed = made.filter((service) => ended.get(service.id)?.powerState === 'error');
      if (failed.length) {
        const why = ended.get(failed[0].id)?.error ?? 'unknown error';
        throw Problem.conflict(
          'invalid_state',
          `The machine of ${failed.length} of ${made.length} VPS(es) could not be made (${failed.map((f) => f.id).join(', ')}; ${why}). ` +
            'They show powerState stopped, with an instance_fault notification, and nothing is left on the hypervisor; terminate them with service:set-status.',
        );
      }
    }
    if (spec.type === 'object_storage' && this.storage.remote) {
      const states = await this.storage.settle(out.map((s) => s.id));
      for (const service of out) service.objectStorage!.state = states.get(service.id) ?? service.objectStorage!.state;
    }
    return out;
  }

  /** The same inside the caller's transaction (demo data). */
  async provisionIn(manager: EntityManager, accountId: string, spec: ProvisionSpec, count = 1): Promise<ServiceResponse[]> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_PROVISION_COUNT) {
      throw Problem.invalidInput(`count must be from 1 to ${MAX_PROVISION_COUNT}.`, [{ field: 'count', message: 'out of range' }]);
    }
    if (spec.providerRef !== undefined && (spec.type !== 'vps' || count !== 1)) {
      throw Problem.invalidInput('An existing machine can be adopted by one VPS only.', [
        { field: 'providerRef', message: 'needs type vps and count 1' },
      ]);
    }
    if ((spec.image !== undefined || spec.sshKeys !== undefined) && (spec.type !== 'vps' || spec.providerRef !== undefined)) {
      throw Problem.invalidInput('An image (and SSH keys) can be installed on a new VPS only, not on an adopted machine.', [
        { field: 'image', message: 'needs type vps without providerRef' },
      ]);
    }
    if (spec.sshKeys !== undefined && spec.image === undefined) {
      throw Problem.invalidInput("SSH keys are written by the image's cloud-init: give an image too.", [
        { field: 'sshKeys', message: 'needs image' },
      ]);
    }
    const product = await this.product(spec, manager);
    const diskGb = spec.type === 'vps' ? (product.specs as VpsSpecs).diskGb : null;
    const guest = spec.image
      ? await this.guests.plan(manager, accountId, { image: spec.image, diskGb: diskGb!, sshKeyIds: spec.sshKeys ?? 'all' })
      : undefined;
    const cycle =
      spec.billingCycle ?? (product.prices.some((p) => p.billingCycle === 'monthly') ? 'monthly' : product.prices[0]?.billingCycle);
    const price = product.prices.find((p) => p.billingCycle === cycle);
    if (!price) {
      throw Problem.invalidInput(
        `Product ${product.slug} has no ${cycle ?? ''} price; it has ${product.prices.map((p) => p.billingCycle).join(', ')}.`,
      );
    }
    const status = spec.status ?? 'active';
    const now = new Date();
    const due = nextDueDate(price.billingCycle, status, spec.createdAt ?? now, now);
    const prefix = spec.name ?? `${product.slug}-${randomBytes(3).toString('hex')}`;
    const out: ServiceResponse[] = [];
    const region = spec.region ?? VPS_REGIONS[0];
    const powerState: PowerState = spec.powerState ?? (status === 'active' ? 'running' : 'stopped');
    const plan: MachinePlan | null =
      spec.type === 'vps' && (spec.machines || spec.providerRef) && status !== 'cancelled' && status !== 'terminated'
        ? { region, specs: product.specs as VpsSpecs, powerState, providerRef: spec.providerRef, guest, waiting: spec.wait !== false }
        : null;
    for (let start = 0; start < count; start += BATCH) {
      const ids = Array.from({ length: Math.min(BATCH, count - start) }, () => randomUUID());
      const names = ids.map((_, i) => (count > 1 ? `${prefix}-${start + i + 1}` : prefix));
      // An adopted machine is looked up first: the inserts below lock the account's counters until COMMIT.
      const adopted: MachineRecord | null =
        plan?.providerRef !== undefined ? await this.machines.adopt(manager, ids[0], { ...plan, providerRef: plan.providerRef }) : null;
      const rows: InsertedService[] = await this.services.insertMany(manager, {
        ids,
        names,
        accountId,
        productId: product.id,
        type: spec.type,
        status,
        price: price.price,
        currency: price.currency,
        billingCycle: price.billingCycle,
        nextDueDate: due,
        createdAt: spec.createdAt ?? null,
      });
      const instances =
        spec.type === 'vps'
          ? (
              await this.machines.record(
                manager,
                ids,
                names,
                { region, powerState, imageId: guest?.image.id ?? null, diskGb },
                plan,
                adopted,
              )
            ).summaries
          : new Map<string, InstanceSummary>();
      if (spec.type === 'object_storage') await this.storage.provisioned(manager, ids, product);
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
        const instance = instances.get(id);
        out.push(
          ServiceResponse.fromRow({
            id,
            product_id: product.id,
            name: names[i],
            type: spec.type,
            status,
            price: price.price,
            currency: price.currency,
            billing_cycle: price.billingCycle,
            next_due_date: row.next_due_date,
            created_at: row.created_at,
            power_state: instance?.powerState ?? null,
            region: instance?.region ?? null,
            ipv4: instance?.ipv4 ?? null,
            ipv6: instance?.ipv6 ?? null,
            ssh_host: instance?.sshHost ?? null,
            ssh_port: instance?.sshPort ?? null,
            ...(spec.type === 'object_storage' ? this.storageRow(product) : {}),
          }),
        );
      });
    }
    return out;
  }

  /** A new service's storage: nothing stored yet; `pending` until the gateway has the user (always `active` on the simulator). */
  private storageRow(product: CatalogProduct) {
    const { quotaBytes, quotaObjects } = quotaOf(product.specs as ObjectStorageSpecs);
    return { os_state: this.storage.remote ? 'pending' : 'active', os_quota_bytes: quotaBytes, os_quota_objects: quotaObjects };
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

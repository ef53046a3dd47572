import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { ServiceType } from '../service.types';
import { COMMON_SPEC_KEYS, ProvisionSpec, ProvisionSpecError } from './provision-spec';
import type { ShownPart } from '../dto/service-parts';
import { ServiceKind } from './service-kind';

/**
 * The kinds of service, each registered by its own area's module when it starts (VpsModule,
 * ObjectStorageModule): the services area reaches a kind only through here.
 */
@Injectable()
export class ServiceKinds {
  private readonly kinds = new Map<ServiceType, ServiceKind>();

  register(kind: ServiceKind): void {
    if (this.kinds.has(kind.type)) throw new Error(`Service kind ${kind.type} is registered twice.`);
    this.kinds.set(kind.type, kind);
  }

  of(type: ServiceType): ServiceKind {
    const kind = this.kinds.get(type);
    if (!kind) throw new Error(`No service kind ${type} is registered (is its module imported by the app?).`);
    return kind;
  }

  /** The options a kind reads; none for a kind this app does not run. */
  optionsOf(type: ServiceType): readonly string[] {
    return this.kinds.get(type)?.options ?? [];
  }

  /** Its kind's checks, and no option of another kind. */
  checkSpec(spec: ProvisionSpec, count: number): void {
    const kind = this.of(spec.type);
    for (const [option, value] of Object.entries(spec)) {
      if (value === undefined || COMMON_SPEC_KEYS.includes(option) || kind.options.includes(option)) continue;
      const owners = [...this.kinds.values()].filter((other) => other.options.includes(option)).map((other) => `a ${other.type}`);
      throw new ProvisionSpecError(option, owners.length ? `applies to ${owners.join(' or ')} only` : 'is not an option of any kind');
    }
    kind.checkSpec(spec, count);
  }

  /** What each kind shows of these services: one statement per kind present, side by side unless in the caller's transaction. */
  async partsOf(services: { id: string; type: ServiceType }[], manager?: EntityManager): Promise<Map<string, ShownPart>> {
    const idsByType = new Map<ServiceType, string[]>();
    for (const { id, type } of services) {
      const ids = idsByType.get(type);
      if (ids) ids.push(id);
      else idsByType.set(type, [id]);
    }
    const read = async ([type, ids]: [ServiceType, string[]]) => shown(this.of(type), await this.of(type).summaries(ids, manager));
    const parts: Map<string, ShownPart>[] = [];
    if (manager) for (const entry of idsByType) parts.push(await read(entry));
    else parts.push(...(await Promise.all([...idsByType].map(read))));
    return new Map(parts.flatMap((byId) => [...byId]));
  }
}

/** A kind's parts as the responses show them, under its key. */
export function shown(kind: ServiceKind, parts: Map<string, object>): Map<string, ShownPart> {
  return new Map([...parts].map(([id, value]) => [id, { key: kind.part.key, value }]));
}

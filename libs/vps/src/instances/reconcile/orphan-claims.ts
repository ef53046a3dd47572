import { Injectable } from '@nestjs/common';
import { ComputeProvider, ComputeProviderError, HypervisorInventory, MachineMark } from '../../compute/compute-provider';
import { VpsInstancesRepository } from '../vps-instances.repository';
import type { Orphan } from './hypervisor-orphans.repository';

/** This deployment's to remove; or carrying no mark and naming no service of this database: only reported. */
export interface ClaimedOrphans {
  own: Orphan[];
  unmarked: Orphan[];
}

type Claim = 'own' | 'foreign' | 'unmarked';

const DOMAIN_OF_VOLUME = /^svc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/**
 * Which `svc-` names no live VPS owns are this deployment's own: several deployments
 * may share a hypervisor. A domain is when its deployment mark is ours, or, carrying no mark
 * (defined before marks), when the service in its name is one of this database's. A volume goes
 * with its domain while that is there, else the service in its name decides. Another deployment's
 * are left out; unmarked names of services this database never had are never removed.
 */
@Injectable()
export class OrphanClaims {
  /** Domains another deployment marked, per hypervisor: a mark never passes to us, so each is asked once. */
  private readonly foreign = new Map<string, Set<string>>();

  constructor(
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
  ) {}

  /** Throws when a mark cannot be read: nothing is concluded for this hypervisor in this pass. */
  async sort({ hypervisor, domains }: HypervisorInventory, candidates: Orphan[]): Promise<ClaimedOrphans> {
    if (!candidates.length) return { own: [], unmarked: [] };
    const ours = await this.instances.ownMachineNames(candidates.map((c) => c.name));
    const foreign = this.foreignOn(hypervisor, domains);
    const claims = new Map<string, Claim | null>();
    for (const { kind, name } of candidates) {
      if (kind !== 'domain') continue;
      const mark = foreign.has(name) ? 'foreign' : await this.markOf(hypervisor, name);
      if (mark === 'foreign') foreign.add(name);
      claims.set(name, domainClaim(mark, ours.has(name)));
    }
    const sorted: ClaimedOrphans = { own: [], unmarked: [] };
    for (const orphan of candidates) {
      const claim = orphan.kind === 'domain' ? claims.get(orphan.name) : volumeClaim(orphan.name, domains, claims, ours);
      if (claim === 'own') sorted.own.push(orphan);
      else if (claim === 'unmarked') sorted.unmarked.push(orphan);
    }
    return sorted;
  }

  /** null: the domain is gone since the list. */
  private markOf(hypervisor: string, domain: string): Promise<MachineMark | null> {
    return this.compute
      .machineMark(hypervisor, domain)
      .catch((err: unknown) => (err instanceof ComputeProviderError && err.code === 'not_found' ? null : Promise.reject(err)));
  }

  private foreignOn(hypervisor: string, domains: Map<string, unknown>): Set<string> {
    const known = this.foreign.get(hypervisor) ?? new Set<string>();
    for (const name of known) if (!domains.has(name)) known.delete(name);
    this.foreign.set(hypervisor, known);
    return known;
  }
}

/** null: the domain is gone since the list. Without a mark, the service in its name decides. */
function domainClaim(mark: MachineMark | null, namesOurService: boolean): Claim | null {
  if (mark === null) return null;
  if (mark === 'none') return namesOurService ? 'own' : 'unmarked';
  return mark === 'ours' ? 'own' : 'foreign';
}

/** A volume of a domain still listed follows that domain (null when the domain's claim is not known). */
function volumeClaim(name: string, domains: Map<string, unknown>, claims: Map<string, Claim | null>, ours: Set<string>): Claim | null {
  const domain = DOMAIN_OF_VOLUME.exec(name)?.[0];
  if (domain && domains.has(domain)) return claims.get(domain) ?? null;
  return ours.has(name) ? 'own' : 'unmarked';
}

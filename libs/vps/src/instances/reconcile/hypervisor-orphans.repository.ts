import { Injectable } from '@nestjs/common';
import { runSql, sqlRows } from '@app/core';
import { DataSource } from 'typeorm';

export type OrphanKind = 'domain' | 'volume';

export interface Orphan {
  kind: OrphanKind;
  name: string;
}

export interface TrackedOrphan extends Orphan {
  /** Since it was first seen, by the database's clock (a replica's own clock may be stepped). */
  seenMs: number;
}

/** All SQL on hypervisor_orphans: when reconciliation first saw each `svc-` name of no live service. */
@Injectable()
export class HypervisorOrphansRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records this pass's orphans of one hypervisor (a name seen again keeps its first sighting) and
   * forgets the ones no longer there; returns them all with their first sighting.
   */
  async sighted(hypervisor: string, orphans: Orphan[]): Promise<TrackedOrphan[]> {
    const kinds = orphans.map((o) => o.kind);
    const names = orphans.map((o) => o.name);
    await runSql(
      this.dataSource,
      `DELETE FROM hypervisor_orphans h
        WHERE h.hypervisor = $1
          AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS o(kind, name) WHERE o.kind = h.kind AND o.name = h.name)`,
      [hypervisor, kinds, names],
    );
    return sqlRows<TrackedOrphan>(
      this.dataSource,
      `INSERT INTO hypervisor_orphans (hypervisor, kind, name)
       SELECT $1, kind, name FROM unnest($2::text[], $3::text[]) AS o(kind, name)
       ON CONFLICT (hypervisor, kind, name) DO UPDATE SET last_seen_at = now()
       RETURNING kind, name, (extract(epoch FROM now() - first_seen_at) * 1000)::float8 AS "seenMs"`,
      [hypervisor, kinds, names],
    );
  }

  async forget(hypervisor: string, orphan: Orphan): Promise<void> {
    await runSql(this.dataSource, `DELETE FROM hypervisor_orphans WHERE hypervisor = $1 AND kind = $2 AND name = $3`, [
      hypervisor,
      orphan.kind,
      orphan.name,
    ]);
  }
}

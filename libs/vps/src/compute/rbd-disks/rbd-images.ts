import { ComputeProviderError } from '../compute-provider';
import type { DeploymentIdentity } from '../deployment-identity';
import type { CephCli } from '../volumes/ceph-cli';
import { ensureRbdPool } from '../volumes/rbd-pool';
import { MARK_KEY } from '../volumes/rbd-volume-backend';

/** The snapshot of an image its VPSes' disks are cloned from: present and protected only once the image is complete. */
export const BASE_SNAPSHOT = 'base';

export const isCode = (err: unknown, code: string): boolean => err instanceof ComputeProviderError && err.code === code;

/**
 * The RBD images of one pool that this deployment makes, each carrying its mark (`hosting.deployment`
 * image metadata, as volumes): one of another deployment's is never changed or removed
 * (`foreign_volume`); an unmarked one is what a crash before its mark left, and is ours.
 */
export class RbdImages {
  private poolReady = false;

  constructor(
    readonly cli: CephCli,
    readonly pool: string,
    private readonly clientName: string,
    private readonly identity: Pick<DeploymentIdentity, 'id'>,
  ) {}

  spec(image: string): string {
    return `${this.pool}/${image}`;
  }

  async ensurePool(): Promise<void> {
    if (this.poolReady) return;
    await ensureRbdPool(this.cli, this.pool, this.clientName);
    this.poolReady = true;
  }

  async exists(image: string): Promise<boolean> {
    return (await this.markOf(image)).exists;
  }

  async sizeOf(image: string): Promise<number> {
    return (JSON.parse(await this.cli.rbd(['info', this.spec(image), '--format', 'json'])) as { size: number }).size;
  }

  /** The bytes the image's data takes in the cluster (`rbd du`: what is allocated, not its size), its snapshots' rows included. */
  async usedBytes(image: string): Promise<number> {
    const du = JSON.parse(await this.cli.rbd(['du', this.spec(image), '--format', 'json'])) as {
      images: { name: string; used_size: number }[];
    };
    return du.images.filter((row) => row.name === image).reduce((sum, row) => sum + row.used_size, 0);
  }

  async snapshots(image: string): Promise<string[]> {
    return (JSON.parse(await this.cli.rbd(['snap', 'ls', this.spec(image), '--format', 'json'])) as { name: string }[]).map(
      (snap) => snap.name,
    );
  }

  async isProtected(image: string, snapshot: string): Promise<boolean> {
    if (!(await this.snapshots(image)).includes(snapshot)) return false;
    const info = JSON.parse(await this.cli.rbd(['info', `${this.spec(image)}@${snapshot}`, '--format', 'json'])) as { protected?: string };
    return info.protected === 'true';
  }

  /** Complete: its `@base` is there and protected. */
  async hasBase(image: string): Promise<boolean> {
    return (await this.exists(image)) && this.isProtected(image, BASE_SNAPSHOT);
  }

  /** Marks the image as complete: `@base` made and protected, last. */
  async makeBase(image: string): Promise<void> {
    await this.cli.rbd(['snap', 'create', `${this.spec(image)}@${BASE_SNAPSHOT}`, '--no-progress']);
    await this.cli.rbd(['snap', 'protect', `${this.spec(image)}@${BASE_SNAPSHOT}`]);
  }

  /** Deletes an image this deployment made (or an unmarked one) with its snapshots; gone is fine. */
  async removeOurs(image: string): Promise<void> {
    if (!(await this.markOf(image)).exists) return;
    await this.refuseForeign(image);
    const snaps = await this.snapshots(image);
    for (const snap of snaps) {
      if (await this.isProtected(image, snap))
        await this.cli.rbd(['snap', 'unprotect', `${this.spec(image)}@${snap}`]).catch(() => undefined);
    }
    if (snaps.length) await this.cli.rbd(['snap', 'purge', this.spec(image), '--no-progress']);
    await this.cli
      .rbd(['rm', this.spec(image), '--no-progress'], { expected: ['not_found'] })
      .catch((err: unknown) => (isCode(err, 'not_found') ? undefined : Promise.reject(err)));
  }

  async mark(image: string): Promise<void> {
    const { mark } = await this.markOf(image);
    if (mark === null) await this.cli.rbd(['image-meta', 'set', this.spec(image), MARK_KEY, await this.identity.id()]);
  }

  async refuseForeign(image: string): Promise<void> {
    const { mark } = await this.markOf(image);
    if (mark !== null && mark !== (await this.identity.id()))
      throw new ComputeProviderError('foreign_volume', `The RBD image ${image} was made by another deployment (${mark}).`);
  }

  private async markOf(image: string): Promise<{ exists: boolean; mark: string | null }> {
    try {
      const listed = await this.cli.rbd(['image-meta', 'list', this.spec(image), '--format', 'json'], { expected: ['not_found'] });
      const meta = (listed.trim() ? JSON.parse(listed) : {}) as Record<string, string>;
      return { exists: true, mark: meta[MARK_KEY] ?? null };
    } catch (err) {
      if (isCode(err, 'not_found')) return { exists: false, mark: null };
      throw err;
    }
  }
}

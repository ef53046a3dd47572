import { ComputeProviderError, HypervisorInventory, MACHINE_PREFIX } from '../compute-provider';
import { DeploymentMarks } from './deployment-marks';
import { parseDomainList, powerStateOf } from './domain-state';
import { lookBeforeRetry } from './look-before-retry';
import { StoragePool } from './storage-pool';
import { Virsh } from './virsh';

const isNotFound = (err: unknown) => err instanceof ComputeProviderError && err.code === 'not_found';

/**
 * What reconciliation sees of each hypervisor: its `svc-` domains with their states and
 * the `svc-` volumes of LIBVIRT_STORAGE_POOL, and the removal of one of them. A hypervisor named by
 * its connection URI; one whose list fails is left out (nothing can be concluded from silence).
 * Which of them are this deployment's is the reconciler's call; a domain marked by another
 * deployment is refused here once more, just before it would be removed.
 */
export class LibvirtInventory {
  constructor(
    private readonly virsh: Virsh,
    private readonly pool: StoragePool,
    private readonly marks: DeploymentMarks,
    private readonly readTimeoutMs: number,
    private readonly changeTimeoutMs: number,
  ) {}

  async of(uris: string[]): Promise<HypervisorInventory[]> {
    const out: HypervisorInventory[] = [];
    for (const uri of uris) {
      try {
        const all = parseDomainList(await this.run(uri, ['list', '--all'], this.readTimeoutMs));
        const domains = new Map([...all].filter(([name]) => name.startsWith(MACHINE_PREFIX)));
        out.push({ hypervisor: uri, domains, volumes: await this.volumes(uri) });
      } catch {
        // Unreachable now: the next pass looks again.
      }
    }
    return out;
  }

  async remove(uri: string, kind: 'domain' | 'volume', name: string): Promise<void> {
    if (!name.startsWith(MACHINE_PREFIX)) throw new ComputeProviderError('invalid_state', `${name} is not a name of ours.`);
    if (kind === 'volume') return this.pool.remove(uri, name);
    const state = await this.run(uri, ['domstate', name]).catch((err: unknown) => (isNotFound(err) ? null : Promise.reject(err)));
    if (state === null) return;
    await this.marks.refuseForeign(uri, name);
    if (powerStateOf(state) !== 'stopped') {
      await lookBeforeRetry(
        () => this.run(uri, ['destroy', name]),
        async () => powerStateOf(await this.run(uri, ['domstate', name])) === 'stopped',
      );
    }
    await lookBeforeRetry(
      () =>
        this.run(uri, ['undefine', name, '--managed-save', '--snapshots-metadata']).catch((err: unknown) =>
          isNotFound(err) ? '' : Promise.reject(err),
        ),
      async () =>
        !(await this.run(uri, ['domstate', name]).then(
          () => true,
          (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)),
        )),
    );
  }

  private async volumes(uri: string): Promise<string[]> {
    return (await this.pool.volumes(uri, this.readTimeoutMs)).filter((name) => name.startsWith(MACHINE_PREFIX));
  }

  private run(uri: string, args: string[], timeoutMs = this.changeTimeoutMs): Promise<string> {
    return this.virsh.run(uri, args, { timeoutMs });
  }
}

import { ComputeProviderError } from '../compute-provider';
import type { DeploymentIdentity } from '../deployment-identity';
import { deploymentMarkOf, DEPLOYMENT_NS } from './domain-xml';
import { NO_METADATA, Virsh } from './virsh';

/** The code of a refusal to change or remove a domain another deployment defined. */
export const FOREIGN_MACHINE = 'foreign_machine';

/**
 * The deployment mark in a domain's <metadata>: every domain this adapter defines
 * carries its deployment's id, so another deployment on the same hypervisor can tell it is not
 * its own. Domains defined before marks, or by hand, carry none.
 */
export class DeploymentMarks {
  constructor(
    private readonly virsh: Virsh,
    private readonly identity: Pick<DeploymentIdentity, 'id'>,
    private readonly timeoutMs: number,
  ) {}

  ours(): Promise<string> {
    return this.identity.id();
  }

  /** The deployment id a domain is marked with; null when it carries none. A domain that is gone: not_found. */
  async of(uri: string, domain: string, timeoutMs = this.timeoutMs): Promise<string | null> {
    try {
      return deploymentMarkOf(await this.virsh.run(uri, ['metadata', domain, '--uri', DEPLOYMENT_NS], { timeoutMs }));
    } catch (err) {
      if (err instanceof ComputeProviderError && err.code === NO_METADATA) return null;
      throw err;
    }
  }

  /** The other deployment whose mark a domain carries; null when it is ours, unmarked or gone. */
  async foreignMark(uri: string, domain: string): Promise<string | null> {
    const mark = await this.of(uri, domain).catch((err: unknown) =>
      err instanceof ComputeProviderError && err.code === 'not_found' ? null : Promise.reject(err),
    );
    return mark !== null && mark !== (await this.ours()) ? mark : null;
  }

  /** Refuses (FOREIGN_MACHINE) a domain marked by another deployment; ours and unmarked ones pass. */
  async refuseForeign(uri: string, domain: string): Promise<void> {
    const mark = await this.foreignMark(uri, domain);
    if (mark) throw new ComputeProviderError(FOREIGN_MACHINE, `The machine ${domain} was defined by another deployment (${mark}).`);
  }
}

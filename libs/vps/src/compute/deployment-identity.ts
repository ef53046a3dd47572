import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { DeploymentIdentityRepository } from './deployment-identity.repository';

/**
 * Which deployment this is: LIBVIRT_DEPLOYMENT_ID, or the id its database made once, so
 * every replica and every restart of one deployment agree. The libvirt adapter marks the domains it
 * defines with it, and reconciliation removes only what carries it.
 */
@Injectable()
export class DeploymentIdentity implements OnApplicationBootstrap {
  private known: Promise<string> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly identities: DeploymentIdentityRepository,
  ) {}

  /**
   * Read once at start: the adapter asks for the id inside transactions (a termination), and on the
   * embedded database, whose one connection that transaction holds, a read then would wait forever.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.computeProvider !== 'libvirt') return;
    await this.id().catch(() => undefined); // before migrations (migration:run) the table is not there yet
  }

  id(): Promise<string> {
    const configured = this.config.libvirt.deploymentId;
    if (configured) return Promise.resolve(configured);
    this.known ??= this.identities.idOrMake().catch((err: unknown) => {
      this.known = null;
      throw err;
    });
    return this.known;
  }
}

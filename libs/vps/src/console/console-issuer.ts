import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ActivityLog, AppConfig, Principal, Problem, SecretBox, TransactionRunner } from '@app/core';
import { VpsOwnership } from '../instances/vps-ownership';
import { ComputeProvider } from '../compute/compute-provider';
import { ConsoleSessionResponse } from './dto/console-session.response';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { CONSOLE_SESSION_TTL_MS, consoleLimitReached, consoleUrlBase, hashToken } from './console.service';

/** Issues a console session for the caller's running VPS: the upstream target sealed, a single-use token in the URL. */
@Injectable()
export class ConsoleIssuer {
  constructor(
    private readonly ownership: VpsOwnership,
    private readonly compute: ComputeProvider,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly tx: TransactionRunner,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly activity: ActivityLog,
  ) {}

  async open(caller: Principal, serviceId: string): Promise<ConsoleSessionResponse> {
    const { accountId } = caller;
    const vps = await this.ownership.requireVps(accountId, serviceId);
    if (vps.status !== 'active')
      throw Problem.conflict('invalid_state', `The service is ${vps.status}; a console needs an active service.`);
    if (vps.powerState !== 'running')
      throw Problem.conflict('invalid_state', `The instance is ${vps.powerState}; a console needs it running.`);
    if ((await this.sessions.countOpen(accountId)) >= this.config.consoleMaxPerAccount)
      throw consoleLimitReached(this.config.consoleMaxPerAccount);
    // The adapter's refusal (no console, hypervisor down) becomes the problem at the edge (vps.problems.ts).
    const target = await this.compute.openConsole(vps.ref);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + CONSOLE_SESSION_TTL_MS);
    await this.tx.run(async (m) => {
      await this.sessions.insert(m, serviceId, caller, {
        tokenHash: hashToken(token),
        targetSealed: this.box.seal(JSON.stringify(target)),
        expiresAt,
      });
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'instance.console',
        entity: { type: 'service', id: serviceId },
        details: { expiresAt: expiresAt.toISOString() },
      });
    });
    return ConsoleSessionResponse.fromSession(
      `${consoleUrlBase(this.config.publicUrl)}/console?token=${token}`,
      target.password,
      expiresAt,
    );
  }
}

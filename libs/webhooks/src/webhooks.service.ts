import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService } from '@app/accounts';
import {
  ActivityAction,
  ActivityLog,
  AppConfig,
  Paginated,
  paginated,
  PageQuery,
  Principal,
  Problem,
  SecretBox,
  TransactionRunner,
} from '@app/core';
import { urlProblem } from './delivery/webhook-url';
import { newSigningSecret } from './delivery/webhook-signature';
import { CreateWebhookRequest, UpdateWebhookRequest } from './dto/webhook.request';
import { WebhookResponse, WebhookWithSecretResponse } from './dto/webhook.response';
import { EndpointRow, WebhooksRepository } from './webhooks.repository';

export const MAX_WEBHOOKS_PER_ACCOUNT = 10;
/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_SECONDS = 24 * 3600;

@Injectable()
export class WebhooksService {
  constructor(
    private readonly endpoints: WebhooksRepository,
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountsService,
    private readonly activity: ActivityLog,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
  ) {}

  async create(caller: Principal, input: CreateWebhookRequest): Promise<WebhookWithSecretResponse> {
    const { accountId } = caller;
    // Pre-hijacking: whoever registered someone else's address must not keep listening once the owner takes it back.
    if (!(await this.accounts.findById(accountId))?.emailVerifiedAt) throw Problem.emailUnverified('adding webhooks');
    this.checkUrl(input.url);
    const secret = newSigningSecret();
    const row = await this.tx.run(async (m) => {
      await this.accounts.lockForUpdate(m, accountId);
      if ((await this.endpoints.countForAccount(m, accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw Problem.conflict(
          'quota_exceeded',
          `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook endpoints; delete one first.`,
        );
      }
      const created = await this.endpoints.insert(m, {
        accountId,
        url: input.url,
        description: input.description || null,
        events: input.events,
        secretSealed: this.secrets.seal(secret),
      });
      await this.record(m, caller, created, 'webhook.create', { url: created.url, events: created.events });
      return created;
    });
    return WebhookWithSecretResponse.withSecret(row, secret);
  }

  async list(accountId: string, query: PageQuery): Promise<Paginated<WebhookResponse>> {
    const { rows, total } = await this.endpoints.page(accountId, query);
    return paginated(rows.map(WebhookResponse.fromRow), query, total);
  }

  async get(accountId: string, id: string): Promise<WebhookResponse> {
    return WebhookResponse.fromRow(await this.findOneForAccount(accountId, id));
  }

  async update(caller: Principal, id: string, input: UpdateWebhookRequest): Promise<WebhookResponse> {
    const { accountId } = caller;
    if (input.url !== undefined) this.checkUrl(input.url);
    const changes = {
      url: input.url,
      events: input.events,
      enabled: input.enabled,
      description: input.description === undefined ? undefined : input.description || null,
    };
    const row = await this.tx.run(async (m) => {
      const updated = await this.endpoints.update(m, accountId, id, changes);
      if (!updated) throw Problem.notFound('Webhook');
      const fields = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
      await this.record(m, caller, updated, 'webhook.update', {
        fields,
        url: updated.url,
        events: updated.events,
        enabled: updated.enabled,
      });
      return updated;
    });
    return WebhookResponse.fromRow(row);
  }

  async remove(caller: Principal, id: string): Promise<void> {
    const { accountId } = caller;
    await this.tx.run(async (m) => {
      const deleted = await this.endpoints.delete(m, accountId, id);
      if (!deleted) throw Problem.notFound('Webhook');
      await this.record(m, caller, deleted, 'webhook.delete', { url: deleted.url });
    });
  }

  async rotateSecret(caller: Principal, id: string): Promise<WebhookWithSecretResponse> {
    const { accountId } = caller;
    const secret = newSigningSecret();
    const row = await this.tx.run(async (m) => {
      const rotated = await this.endpoints.rotateSecret(m, accountId, id, this.secrets.seal(secret), SECRET_OVERLAP_SECONDS);
      if (!rotated) throw Problem.notFound('Webhook');
      await this.record(m, caller, rotated, 'webhook.rotate_secret', {
        overlapUntil: rotated.previous_secret_expires_at?.toISOString(),
      });
      return rotated;
    });
    return WebhookWithSecretResponse.withSecret(row, secret);
  }

  /**
   * In the caller's transaction: disables every endpoint of the account, each recorded as done by
   * the system with the reason; the owner turns back on those they trust (PATCH enabled).
   */
  async disableAllIn(m: EntityManager, accountId: string, reason: string): Promise<number> {
    const disabled = await this.endpoints.disableAllForAccount(m, accountId);
    for (const row of disabled) {
      await this.activity.record(m, {
        accountId,
        action: 'webhook.disable',
        entity: { type: 'webhook', id: row.id },
        details: { url: row.url, reason },
      });
    }
    return disabled.length;
  }

  async findOneForAccount(accountId: string, id: string): Promise<EndpointRow> {
    const row = await this.endpoints.findOneForAccount(accountId, id);
    if (!row) throw Problem.notFound('Webhook');
    return row;
  }

  private checkUrl(url: string): void {
    const problem = urlProblem(url, this.config.webhooks);
    if (problem) throw Problem.invalidInput(`url: ${problem}`, [{ field: 'url', message: problem }]);
  }

  private record(m: EntityManager, caller: Principal, row: EndpointRow, action: ActivityAction, details: Record<string, unknown>) {
    return this.activity.record(m, { accountId: row.account_id, caller, action, entity: { type: 'webhook', id: row.id }, details });
  }
}

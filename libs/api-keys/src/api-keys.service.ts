import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService } from '@app/accounts';
import {
  ActivityLog,
  Actor,
  ALL_SCOPES,
  credentialsRevoked,
  domainEvent,
  isoTimestamp,
  Paginated,
  paginated,
  PageQuery,
  Principal,
  Problem,
  Publish,
  RecordedBy,
  Role,
  roleAllows,
  scopesOfRole,
  TransactionRunner,
} from '@app/core';
import { ApiKeyCreatedEvent } from './api-keys.events';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyResponse, CreatedApiKeyResponse } from './dto/api-key.response';
import { CreateApiKeyRequest } from './dto/create-api-key.request';

export const MAX_API_KEYS_PER_ACCOUNT = 100;

export interface NewApiKey {
  name: string;
  scopes?: CreateApiKeyRequest['scopes'];
  expiresAt?: Date | null;
}

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountsService,
    private readonly activity: ActivityLog,
  ) {}

  /**
   * Called with the request's principal: a key never mints a key stronger or longer-lived than
   * itself, and an account whose address nobody confirmed gets none (pre-hijacking: whoever
   * registered someone else's address must not keep access after the owner takes it back).
   */
  async createFor(principal: Principal, input: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    const login = await this.accounts.findById(principal.loginId);
    if (!login?.emailVerifiedAt) throw Problem.emailUnverified('creating API keys');
    return this.createFromRequest(principal.accountId, input, principal);
  }

  /** The rules of the create route; the operator's command line has no issuing principal (the key is the account's first owner's). */
  createFromRequest(accountId: string, input: CreateApiKeyRequest, issuer?: Principal, actor?: Actor): Promise<CreatedApiKeyResponse> {
    const scopes = input.scopes ?? (issuer?.role ? [...scopesOfRole(issuer.role)] : [...ALL_SCOPES]);
    if (issuer?.role && scopes.some((scope) => !scopesOfRole(issuer.role!).includes(scope))) {
      throw new Problem(403, 'insufficient_role', `A ${issuer.role} member can create keys with the "read" scope only.`);
    }
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw Problem.invalidInput('expiresAt must be in the future.', [{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    if (issuer?.kind === 'api_key') {
      if (scopes.some((scope) => !issuer.scopes.includes(scope))) {
        throw new Problem(403, 'insufficient_scope', 'An API key cannot create a key with scopes it does not have.');
      }
      if (issuer.expiresAt && (!expiresAt || expiresAt > issuer.expiresAt)) {
        throw new Problem(
          403,
          'forbidden',
          `An API key cannot create a key that outlives it; set expiresAt no later than ${issuer.expiresAt.toISOString()}.`,
        );
      }
    }
    return this.create(accountId, { name: input.name, scopes, expiresAt }, { caller: issuer, actor }, issuer?.memberId ?? undefined);
  }

  /** `by`: who to record (the caller, or a named actor); the system when neither is given. The key is `memberId`'s, else the first owner's. */
  async create(accountId: string, input: NewApiKey, by: RecordedBy = {}, memberId?: string): Promise<CreatedApiKeyResponse> {
    const key = generateApiKey();
    const saved = await this.tx.run(async (m, publish) => {
      const owner = memberId ?? (await this.accounts.firstOwner(accountId, m));
      if (!owner) throw Problem.notFound('Account');
      // Serialises key creation per account so the cap holds under concurrent requests.
      await this.accounts.lockForUpdate(m, accountId);
      const count = await this.keys.countLiveForAccount(m, accountId);
      if (count >= MAX_API_KEYS_PER_ACCOUNT) {
        throw Problem.conflict('quota_exceeded', `An account can have at most ${MAX_API_KEYS_PER_ACCOUNT} API keys; revoke one first.`);
      }
      const row = await this.keys.insert(m, {
        accountId,
        memberId: owner,
        name: input.name,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key),
        scopes: input.scopes ?? [...ALL_SCOPES],
        expiresAt: input.expiresAt ?? null,
      });
      publish(domainEvent<ApiKeyCreatedEvent>('api_key.created', accountId, { apiKeyId: row.id, name: row.name, prefix: row.prefix }));
      await this.activity.record(m, {
        accountId,
        action: 'api_key.create',
        entity: { type: 'api_key', id: row.id },
        ...by,
        details: { name: row.name, prefix: row.prefix, scopes: row.scopes, expiresAt: isoTimestamp(row.expiresAt) },
      });
      return row;
    });
    return CreatedApiKeyResponse.fromCreated(saved, key);
  }

  /** The caller's own keys on the account. */
  async list(caller: Principal, query: PageQuery): Promise<Paginated<ApiKeyResponse>> {
    const [rows, total] = await this.keys.pageForMember(caller.accountId, caller.memberId!, query);
    return paginated(rows.map(ApiKeyResponse.from), query, total);
  }

  async get(caller: Principal, id: string): Promise<ApiKeyResponse> {
    const key = await this.keys.findLiveForMember(caller.accountId, caller.memberId!, id);
    if (!key) throw Problem.notFound('API key');
    return ApiKeyResponse.from(key);
  }

  /** A live key of the account whose member still has `needs` (a console's or an MCP session's recheck). */
  async isLiveWith(accountId: string, id: string, needs: Role): Promise<{ validUntil: Date | null } | null> {
    const key = await this.keys.liveWithRole(accountId, id);
    return key && roleAllows(key.role, needs) ? { validUntil: key.expires_at } : null;
  }

  async revoke(caller: Principal, id: string): Promise<void> {
    const { accountId } = caller;
    const done = await this.tx.run(async (m, publish) => {
      if (!(await this.keys.revokeForMember(m, accountId, caller.memberId!, id))) return false;
      publish(credentialsRevoked(accountId));
      await this.activity.record(m, { accountId, caller, action: 'api_key.revoke', entity: { type: 'api_key', id } });
      return true;
    });
    if (!done) throw Problem.notFound('API key');
  }

  /**
   * In the caller's transaction (a password reset through the mailed link): revokes every live key
   * of the login on every account, records each, and announces the revocation so open streams and
   * consoles check their credential again. Returns how many keys went.
   */
  async revokeAllIn(manager: EntityManager, publish: Publish, loginId: string, by: RecordedBy, reason: string): Promise<number> {
    return this.revokeAll(manager, publish, await this.keys.revokeAllOfLogin(manager, loginId), by, reason);
  }

  /** In the caller's transaction (a member removed or given a lower role): revokes the member's live keys, recorded as `by`. */
  async revokeAllOfMember(manager: EntityManager, publish: Publish, accountId: string, memberId: string, by: RecordedBy, reason: string) {
    const revoked = await this.keys.revokeAllOfMember(manager, memberId);
    return this.revokeAll(
      manager,
      publish,
      revoked.map((key) => ({ ...key, account_id: accountId })),
      by,
      reason,
    );
  }

  private async revokeAll(
    manager: EntityManager,
    publish: Publish,
    revoked: { id: string; account_id: string; name: string; prefix: string }[],
    by: RecordedBy,
    reason: string,
  ): Promise<number> {
    for (const accountId of new Set(revoked.map((key) => key.account_id))) {
      publish(credentialsRevoked(accountId));
    }
    for (const key of revoked) {
      await this.activity.record(manager, {
        accountId: key.account_id,
        action: 'api_key.revoke',
        entity: { type: 'api_key', id: key.id },
        ...by,
        details: { name: key.name, prefix: key.prefix, reason },
      });
    }
    return revoked.length;
  }
}

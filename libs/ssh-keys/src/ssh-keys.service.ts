import { Injectable } from '@nestjs/common';
import { AccountsService } from '@app/accounts';
import {
  ActivityLog,
  isUniqueViolation,
  PageQuery,
  paginated,
  Paginated,
  Principal,
  Problem,
  RecordedBy,
  TransactionRunner,
} from '@app/core';
import { CreateSshKeyRequest, UpdateSshKeyRequest } from './dto/ssh-key.request';
import { SshKeyResponse } from './dto/ssh-key.response';
import { parsePublicKey, PublicKeyError } from './public-key-parser';
import { SshKey } from './ssh-key.entity';
import { SshKeysRepository } from './ssh-keys.repository';

export const MAX_SSH_KEYS_PER_ACCOUNT = 100;

@Injectable()
export class SshKeysService {
  constructor(
    private readonly keys: SshKeysRepository,
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountsService,
    private readonly activity: ActivityLog,
  ) {}

  create(caller: Principal, input: CreateSshKeyRequest): Promise<SshKeyResponse> {
    return this.createFor(caller.accountId, input, { caller });
  }

  /** The rules of the create route; the operator's command line records its staff actor instead of a caller. */
  async createFor(accountId: string, input: CreateSshKeyRequest, by: RecordedBy): Promise<SshKeyResponse> {
    let parsed;
    try {
      parsed = parsePublicKey(input.publicKey);
    } catch (err) {
      if (err instanceof PublicKeyError)
        throw Problem.invalidInput(`publicKey: ${err.message}`, [{ field: 'publicKey', message: err.message }]);
      throw err;
    }
    try {
      const saved = await this.tx.run(async (m) => {
        await this.accounts.lockForUpdate(m, accountId);
        if ((await this.keys.countForAccount(m, accountId)) >= MAX_SSH_KEYS_PER_ACCOUNT) {
          throw Problem.conflict('quota_exceeded', `An account can have at most ${MAX_SSH_KEYS_PER_ACCOUNT} SSH keys; delete one first.`);
        }
        const key = await this.keys.insert(m, accountId, input.name, parsed);
        await this.activity.record(m, {
          accountId,
          ...by,
          action: 'ssh_key.create',
          entity: { type: 'ssh_key', id: key.id },
          details: { name: key.name, fingerprint: key.fingerprint },
        });
        return key;
      });
      return SshKeyResponse.from(saved);
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('duplicate_key', `This key is already in the account (${parsed.fingerprint}).`);
      throw err;
    }
  }

  async list(accountId: string, query: PageQuery): Promise<Paginated<SshKeyResponse>> {
    const [rows, total] = await this.keys.pageForAccount(accountId, query);
    return paginated(rows.map(SshKeyResponse.from), query, total);
  }

  async get(accountId: string, id: string): Promise<SshKeyResponse> {
    return SshKeyResponse.from(await this.findOneForAccount(accountId, id));
  }

  /** One owner-scoped UPDATE (a read-then-save could re-insert a key deleted in between). */
  async rename(caller: Principal, id: string, input: UpdateSshKeyRequest): Promise<SshKeyResponse> {
    const { accountId } = caller;
    const done = await this.tx.run(async (m) => {
      if (!(await this.keys.renameForAccount(m, accountId, id, input.name))) return false;
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'ssh_key.update',
        entity: { type: 'ssh_key', id },
        details: { name: input.name },
      });
      return true;
    });
    if (!done) throw Problem.notFound('SSH key');
    return this.get(accountId, id);
  }

  async remove(caller: Principal, id: string): Promise<void> {
    const { accountId } = caller;
    const done = await this.tx.run(async (m) => {
      if (!(await this.keys.deleteForAccount(m, accountId, id))) return false;
      await this.activity.record(m, { accountId, caller, action: 'ssh_key.delete', entity: { type: 'ssh_key', id } });
      return true;
    });
    if (!done) throw Problem.notFound('SSH key');
  }

  private async findOneForAccount(accountId: string, id: string): Promise<SshKey> {
    const key = await this.keys.findOneForAccount(accountId, id);
    if (!key) throw Problem.notFound('SSH key');
    return key;
  }
}

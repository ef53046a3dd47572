import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService, MemberRow } from '@app/accounts';
import { ApiKeysService } from '@app/api-keys';
import {
  ActivityLog,
  credentialsRevoked,
  PageQuery,
  Paginated,
  paginated,
  Principal,
  Problem,
  Role,
  roleAllows,
  TransactionRunner,
} from '@app/core';
import { MemberMail } from '../member-mail';
import { TeamRateLimits } from '../team-rate-limits';
import { MemberResponse } from './dto/member.response';

const lastOwner = () => Problem.conflict('last_owner', 'The account must keep an owner: make another member an owner first.');

/**
 * The account's members: who they are, their roles, leaving and being removed. Each change is
 * decided with the account's memberships locked (so two owners cannot demote each other at once and
 * leave none), revokes what the member loses at once, and is mailed to the owners.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly mail: MemberMail,
    private readonly limits: TeamRateLimits,
  ) {}

  async list(principal: Principal, query: PageQuery): Promise<Paginated<MemberResponse>> {
    const { rows, total } = await this.accounts.listMembers(principal.accountId, query);
    return paginated(rows.map(MemberResponse.fromRow), query, total);
  }

  async get(principal: Principal, memberId: string): Promise<MemberResponse> {
    const member = await this.accounts.member(principal.accountId, memberId);
    if (!member) throw Problem.notFound('Member');
    return MemberResponse.fromRow(member);
  }

  /** An admin changes neither an owner's role nor anyone's to owner; the last owner keeps the role. */
  async changeRole(principal: Principal, memberId: string, role: Role): Promise<MemberResponse> {
    await this.limits.memberChange(principal.accountId);
    const { accountId } = principal;
    await this.tx.run(async (m, publish) => {
      const members = await this.accounts.lockMembers(m, accountId);
      const target = await this.accounts.member(accountId, memberId, m);
      if (!target) throw Problem.notFound('Member');
      if (target.role === role) return;
      if ((target.role === 'owner' || role === 'owner') && principal.role !== 'owner') throw Problem.insufficientRole('owner');
      if (target.role === 'owner' && members.filter((x) => x.role === 'owner').length === 1) throw lastOwner();
      await this.accounts.setMemberRole(m, memberId, role);
      // Keys are made within a role: a lower one voids them (the member makes new ones).
      if (!roleAllows(role, target.role)) {
        await this.apiKeys.revokeAllOfMember(m, publish, accountId, memberId, { caller: principal }, 'role_lowered');
      }
      publish(credentialsRevoked(accountId));
      await this.activity.record(m, {
        accountId,
        action: 'member.role_change',
        entity: { type: 'member', id: memberId },
        caller: principal,
        details: { email: target.email, from: target.role, to: role },
      });
      await this.tellOwners(
        m,
        accountId,
        `${principal.email} made ${target.email} ${this.mail.roleName(role)} (was ${this.mail.roleName(target.role)}).`,
      );
    });
    return this.get(principal, memberId);
  }

  /** A member may remove themselves (leave); removing anyone else needs an admin, and an owner an owner. */
  async remove(principal: Principal, memberId: string): Promise<void> {
    await this.limits.memberChange(principal.accountId);
    const { accountId } = principal;
    await this.tx.run(async (m, publish) => {
      const members = await this.accounts.lockMembers(m, accountId);
      const target = await this.accounts.member(accountId, memberId, m);
      if (!target) throw Problem.notFound('Member');
      const leaving = target.login_id === principal.loginId;
      if (!leaving && !roleAllows(principal.role!, 'admin')) throw Problem.insufficientRole('admin');
      if (!leaving && target.role === 'owner' && principal.role !== 'owner') throw Problem.insufficientRole('owner');
      if (target.role === 'owner' && members.filter((x) => x.role === 'owner').length === 1) throw lastOwner();
      await this.apiKeys.revokeAllOfMember(
        m,
        publish,
        accountId,
        memberId,
        { caller: principal },
        leaving ? 'member_left' : 'member_removed',
      );
      await this.accounts.removeMember(m, memberId);
      publish(credentialsRevoked(accountId));
      await this.record(m, principal, target, leaving);
    });
  }

  private async record(m: EntityManager, principal: Principal, target: MemberRow, leaving: boolean): Promise<void> {
    await this.activity.record(m, {
      accountId: principal.accountId,
      action: leaving ? 'member.leave' : 'member.remove',
      entity: { type: 'member', id: target.id },
      caller: principal,
      details: { email: target.email, role: target.role },
    });
    const what = leaving ? `${target.email} left the account.` : `${principal.email} removed ${target.email} from the account.`;
    await this.tellOwners(m, principal.accountId, what);
  }

  private async tellOwners(m: EntityManager, accountId: string, what: string): Promise<void> {
    const account = await this.accounts.findById(accountId, m);
    await this.mail.memberChanged(m, await this.accounts.ownerEmails(m, accountId), account?.name ?? accountId, what);
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccountsService } from '@app/accounts';
import {
  ActivityLog,
  AppConfig,
  isUniqueViolation,
  Page,
  PageQuery,
  Paginated,
  paginated,
  Principal,
  Problem,
  roleAllows,
  TransactionRunner,
} from '@app/core';
import { MemberMail } from '../member-mail';
import { TeamRateLimits } from '../team-rate-limits';
import { AcceptedInvitationResponse, CreateInvitationRequest, InvitationResponse } from './dto/invitation.dto';
import { invitationFailedPage, invitationPage } from './invitation.page';
import { InvitationsRepository } from './invitations.repository';

const TOKEN_PREFIX = 'hinv_';
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const alreadyMember = () =>
  Problem.conflict('already_member', 'This address is already a member of the account or has a pending invitation to it.');
const invalidToken = () => new Problem(400, 'invalid_token', 'The invitation is invalid, expired, deleted or already accepted.');

/**
 * Invitations: a single-use link mailed to an address, granting a role no higher than the
 * inviter's, accepted by the signed-in login whose confirmed address it is.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly repository: InvitationsRepository,
    private readonly accounts: AccountsService,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly mail: MemberMail,
    private readonly limits: TeamRateLimits,
    private readonly config: AppConfig,
  ) {}

  async create(principal: Principal, input: CreateInvitationRequest): Promise<InvitationResponse> {
    if (!roleAllows(principal.role!, input.role)) throw Problem.insufficientRole(input.role);
    await this.limits.invitation(principal.accountId);
    const { accountId } = principal;
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    try {
      return await this.tx.run(async (m) => {
        await this.accounts.lockMembers(m, accountId);
        if (await this.accounts.memberByEmail(accountId, input.email, m)) throw alreadyMember();
        await this.repository.dropExpired(m, accountId, input.email);
        const taken = (await this.accounts.countMembers(m, accountId)) + (await this.repository.countPending(m, accountId));
        if (taken >= this.config.teams.membersPerAccount) {
          throw Problem.conflict(
            'quota_exceeded',
            `An account can have at most ${this.config.teams.membersPerAccount} members and pending invitations.`,
          );
        }
        const row = await this.repository.insert(m, {
          accountId,
          email: input.email,
          role: input.role,
          tokenHash: hashToken(token),
          invitedBy: principal.memberId,
          ttlHours: this.config.teams.invitationTtlHours,
        });
        const account = await this.accounts.findById(accountId, m);
        await this.mail.invitation(m, input.email, account?.name ?? accountId, principal.email, input.role, token, row.expires_at);
        await this.activity.record(m, {
          accountId,
          action: 'member.invite',
          entity: { type: 'invitation', id: row.id },
          caller: principal,
          details: { email: input.email, role: input.role },
        });
        return InvitationResponse.fromRow(row);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw alreadyMember();
      throw err;
    }
  }

  async list(principal: Principal, query: PageQuery): Promise<Paginated<InvitationResponse>> {
    const { rows, total } = await this.repository.pending(principal.accountId, query);
    return paginated(rows.map(InvitationResponse.fromRow), query, total);
  }

  /** Its link stops working at once. */
  async remove(principal: Principal, id: string): Promise<void> {
    const done = await this.tx.run(async (m) => {
      const row = await this.repository.deletePending(m, principal.accountId, id);
      if (!row) return false;
      await this.activity.record(m, {
        accountId: principal.accountId,
        action: 'member.invitation_delete',
        entity: { type: 'invitation', id },
        caller: principal,
        details: { email: row.email, role: row.role },
      });
      return true;
    });
    if (!done) throw Problem.notFound('Invitation');
  }

  /** The link's page: what the invitation is and how to accept it; a token that does not work gets the failure page. */
  async page(token: string): Promise<Page> {
    const invitation = token.length <= 200 ? await this.repository.findPending(hashToken(token)) : null;
    if (!invitation) return invitationFailedPage();
    const account = await this.accounts.findById(invitation.account_id);
    const view = { email: invitation.email, account: account?.name ?? '', role: invitation.role, expiresAt: invitation.expires_at };
    return invitationPage(token, view, this.config.publicUrl);
  }

  /** By the signed-in login whose confirmed address was invited; a link forwarded to another login is refused. */
  async accept(principal: Principal, token: string): Promise<AcceptedInvitationResponse> {
    if (principal.kind !== 'access_token') {
      throw new Problem(403, 'forbidden', 'Accepting an invitation needs an access token from a login, not an API key.');
    }
    const login = await this.accounts.findById(principal.loginId);
    if (!login) throw Problem.unauthorized();
    return this.tx.run(async (m) => {
      const invitation = await this.repository.lockByToken(m, hashToken(token));
      if (!invitation) throw invalidToken();
      if (invitation.email !== login.email) {
        throw new Problem(403, 'invitation_for_another_address', `This invitation is for another address than ${login.email}.`);
      }
      if (!login.emailVerifiedAt) throw Problem.emailUnverified('accepting an invitation');
      const { account_id: accountId, role } = invitation;
      await this.accounts.lockMembers(m, accountId);
      if (await this.accounts.membership(accountId, login.id, m)) throw alreadyMember();
      const memberId = await this.accounts.addMember(m, accountId, login.id, role);
      await this.repository.markAccepted(m, invitation.id);
      const account = await this.accounts.findById(accountId, m);
      await this.activity.record(m, {
        accountId,
        action: 'member.join',
        entity: { type: 'member', id: memberId },
        actor: { type: 'account', id: login.id, name: login.name || login.email, memberId, email: login.email, keyId: null },
        request: principal.request,
        details: { email: login.email, role },
      });
      const name = account?.name ?? accountId;
      await this.mail.memberChanged(
        m,
        await this.accounts.ownerEmails(m, accountId),
        name,
        `${login.email} joined the account as ${this.mail.roleName(role)}.`,
      );
      return { accountId, name, role, memberId };
    });
  }
}

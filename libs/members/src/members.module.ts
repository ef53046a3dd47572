import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { ApiKeysModule } from '@app/api-keys';
import { InvitationAcceptanceController, InvitationsController } from './invitations/invitations.controller';
import { InvitationPageController } from './invitations/invitation-page.controller';
import { InvitationsRepository } from './invitations/invitations.repository';
import { InvitationsService } from './invitations/invitations.service';
import { MemberMail } from './member-mail';
import { MembersController } from './members/members.controller';
import { MembersService } from './members/members.service';
import { TeamRateLimits } from './team-rate-limits';
import './members.events';

/** Teams: an account's members and their roles, invitations, leaving (the memberships themselves are the accounts area's). */
@Module({
  imports: [AccountsModule, ApiKeysModule],
  controllers: [MembersController, InvitationsController, InvitationAcceptanceController, InvitationPageController],
  providers: [MembersService, InvitationsService, InvitationsRepository, MemberMail, TeamRateLimits],
})
export class MembersModule {}

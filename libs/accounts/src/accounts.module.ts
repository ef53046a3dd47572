import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Account } from './account.entity';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { PasswordHasher } from './password-hasher';
import { AccountMember } from './members/account-member.entity';
import { MembersRepository } from './members/members.repository';

@Module({
  imports: [TypeOrmModule.forFeature([Account, AccountMember])],
  providers: [AccountsService, AccountsRepository, MembersRepository, PasswordHasher],
  exports: [AccountsService],
})
export class AccountsModule {}

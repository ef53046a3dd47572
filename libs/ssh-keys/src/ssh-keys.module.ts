import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '@app/accounts';
import { AccountSshKeys } from './account-ssh-keys';
import { SshKeyAddCommand } from './cli/ssh-key-add.command';
import { SshKey } from './ssh-key.entity';
import { SshKeysController } from './ssh-keys.controller';
import { SshKeysDemoSeeder } from './ssh-keys.demo';
import { SshKeysRepository } from './ssh-keys.repository';
import { SshKeysService } from './ssh-keys.service';

@Module({
  imports: [AccountsModule, TypeOrmModule.forFeature([SshKey])],
  controllers: [SshKeysController],
  providers: [SshKeysService, SshKeysRepository, SshKeysDemoSeeder, AccountSshKeys, SshKeyAddCommand],
  exports: [AccountSshKeys],
})
export class SshKeysModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '@app/accounts';
import { AppConfig, UrlSigner } from '@app/core';
import { ServicesModule } from '@app/services';
import { Attachment } from './attachments/attachment.entity';
import { AttachmentsRepository } from './attachments/attachments.repository';
import { AttachmentsCleanupJob } from './attachments/attachments-cleanup.job';
import { AttachmentsService } from './attachments/attachments.service';
import { BlobStorage } from './blob-storage/blob-storage';
import { BlobTransferController } from './blob-storage/blob-transfer.controller';
import { LocalBlobStorage } from './blob-storage/local-blob-storage';
import { SupportDemoSeeder } from './support.demo';
import { StaffReplyCommand } from './cli/ticket-staff-reply.command';
import { TicketMessage } from './tickets/ticket-message.entity';
import { Ticket } from './tickets/ticket.entity';
import { TicketsController } from './tickets/tickets.controller';
import { TicketsRepository } from './tickets/tickets.repository';
import { TicketsService } from './tickets/tickets.service';

@Module({
  imports: [TypeOrmModule.forFeature([Ticket, TicketMessage, Attachment]), AccountsModule, ServicesModule],
  controllers: [TicketsController, BlobTransferController],
  providers: [
    {
      provide: BlobStorage,
      inject: [AppConfig, UrlSigner],
      useFactory: async (config: AppConfig, signer: UrlSigner): Promise<BlobStorage> => {
        if (config.blobStorage !== 's3') return new LocalBlobStorage(config, signer);
        // The AWS SDK loads only when it is used: about 20 MB of memory the local default does without.
        const { S3BlobStorage } = await import('./blob-storage/s3-blob-storage');
        return new S3BlobStorage(config);
      },
    },
    TicketsService,
    TicketsRepository,
    AttachmentsService,
    AttachmentsRepository,
    AttachmentsCleanupJob,
    StaffReplyCommand,
    SupportDemoSeeder,
  ],
  exports: [TicketsService, BlobStorage],
})
export class SupportModule {}

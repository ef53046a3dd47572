export * from './support.events';
export * from './support.module';
export * from './tickets/tickets.service';
export * from './attachments/attachments.service';
export * from './blob-storage/blob-storage';
export * from './blob-storage/local-blob-storage';
export * from './support.types';
export * from './migrations';

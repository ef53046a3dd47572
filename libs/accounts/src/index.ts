export * from './accounts.module';
export * from './accounts.service';
export * from './account.entity';

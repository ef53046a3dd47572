export * from './auth.module';
export * from './accounts/accounts.service';
export * from './accounts/account.entity';
export * from './sessions/sessions.service';
export * from './bearer/bearer-auth.guard';
export * from './bearer/credential-verifier';
export * from './dto/auth.response';
export * from './migrations';

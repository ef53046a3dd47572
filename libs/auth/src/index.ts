export * from './auth.events';
export * from './auth.module';
export * from './sessions/sessions.service';
export * from './sessions/session-activity';
export * from './bearer/bearer-auth.guard';
export * from './bearer/credential-verifier';
export * from './dto/auth.response';
export * from './migrations';

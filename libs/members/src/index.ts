export * from './members.module';
export * from './members.events';

import './dns.problems';
export * from './dns.module';
export * from './dns.events';
export * from './migrations';
export * from './provider/dns-provider';

import './dns.problems';
export * from './dns.module';
export * from './dns.events';
export * from './migrations';
export * from './provider/dns-provider';
export * from './reverse/reverse-dns';
export { zoneName } from './records/zone-name';
export { defaultPtr, ptrName } from './reverse/ptr-name';

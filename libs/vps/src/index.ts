export * from './vps.module';
export * from './images.module';
export * from './vps.events';
export * from './vps.types';
export * from './vps-gauges';
export * from './migrations';
export * from './compute/compute-provider';
export * from './kind/vps-provision-spec';

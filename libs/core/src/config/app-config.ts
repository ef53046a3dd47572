export type BlobStorageKind = 'local' | 's3';

export interface RateLimitConfig {
  /** General budget per credential per minute; 0 switches it off. */
  perMinute: number;
  loginPerMinute: number;
  registerPerHour: number;
  ticketCreatePerMinute: number;
  presignPerMinute: number;
  consolePerMinute: number;
}

export interface S3Config {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/** Configuration read once at boot from the environment (names fixed by DESIGN.md). */
export class AppConfig {
  nodeEnv: string;
  production: boolean;
  port: number;
  publicUrl: string;
  databaseUrl?: string;
  dataDir: string;
  logLevel: string;
  demoData: boolean;
  docsEnabled: boolean;
  jwtSecret: string;
  signingSecret: string;
  encryptionKey: Buffer;
  redisUrl?: string;
  blobStorage: BlobStorageKind;
  s3: S3Config;
  rateLimit: RateLimitConfig;
  corsOrigins: string[];
  dbPoolSize: number;
  dbStatementTimeoutMs: number;
  computeTransitionDelayMs: number;
  notificationsHeartbeatMs: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

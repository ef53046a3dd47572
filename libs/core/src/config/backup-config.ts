import { join, resolve } from 'node:path';
import type { BackupConfig } from './vps-settings';
import type { EnvReader } from './env-reader';

/**
 * BACKUP_S3_ENDPOINT, _REGION, _BUCKET, _ACCESS_KEY_ID, _SECRET_ACCESS_KEY, _FORCE_PATH_STYLE and
 * _PART_MB (DESIGN.md, "Configuration"); BACKUP_DIR for the local store; BACKUP_RETENTION (7);
 * BACKUP_TERMINATED_GRACE_HOURS (72); BACKUP_WINDOW_START_HOUR (0) and BACKUP_WINDOW_HOURS (24), UTC.
 */
export function backupConfig(env: EnvReader, dataDir: string): BackupConfig {
  const endpoint = env.url('BACKUP_S3_ENDPOINT', undefined, ['http:', 'https:']);
  const config: BackupConfig = {
    localDir: resolve(env.string('BACKUP_DIR') ?? join(dataDir, 'backups')),
    retention: env.int('BACKUP_RETENTION', 7, 1, 365),
    terminatedGraceHours: env.int('BACKUP_TERMINATED_GRACE_HOURS', 72, 0, 24 * 365),
    partBytes: env.int('BACKUP_S3_PART_MB', 16, 5, 512) * 1024 * 1024,
    window: { startHour: env.int('BACKUP_WINDOW_START_HOUR', 0, 0, 23), hours: env.int('BACKUP_WINDOW_HOURS', 24, 1, 24) },
  };
  if (!endpoint) return config;
  const required = (name: string) => {
    const value = env.string(name);
    if (!value) env.problems.push(`${name} is required when BACKUP_S3_ENDPOINT is set`);
    return value ?? '';
  };
  config.s3 = {
    endpoint,
    region: env.string('BACKUP_S3_REGION', 'us-east-1')!,
    bucket: required('BACKUP_S3_BUCKET'),
    accessKeyId: required('BACKUP_S3_ACCESS_KEY_ID'),
    secretAccessKey: required('BACKUP_S3_SECRET_ACCESS_KEY'),
    // Ceph RGW and most S3-compatible stores on one host name want path-style addressing.
    forcePathStyle: env.bool('BACKUP_S3_FORCE_PATH_STYLE', true),
  };
  return config;
}

import { join } from 'node:path';
import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: backups', () => {
  afterEach(removeDataDirs);

  it('keeps 7 backups in DATA_DIR/backups by default, no bucket', () => {
    const dir = dataDir();
    const { backups } = loadConfig({ DATA_DIR: dir, ...secrets });
    expect(backups).toEqual({
      localDir: join(dir, 'backups'),
      retention: 7,
      terminatedGraceHours: 72,
      partBytes: 16 * 1024 * 1024,
      window: { startHour: 0, hours: 24 },
    });
  });

  it('reads the bucket, its keys, the retention and the grace period', () => {
    const { backups } = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      BACKUP_S3_ENDPOINT: 'http://127.0.0.1:7480',
      BACKUP_S3_BUCKET: 'vps-backups',
      BACKUP_S3_ACCESS_KEY_ID: 'AK',
      BACKUP_S3_SECRET_ACCESS_KEY: 'SK',
      BACKUP_RETENTION: '3',
      BACKUP_TERMINATED_GRACE_HOURS: '0',
      BACKUP_S3_PART_MB: '8',
    });
    expect(backups.s3).toEqual({
      endpoint: 'http://127.0.0.1:7480',
      region: 'us-east-1',
      bucket: 'vps-backups',
      accessKeyId: 'AK',
      secretAccessKey: 'SK',
      forcePathStyle: true,
    });
    expect(backups).toMatchObject({ retention: 3, terminatedGraceHours: 0, partBytes: 8 * 1024 * 1024 });
  });

  it('refuses a bucket without its name or keys, and a retention of 0', () => {
    const found = problems({ DATA_DIR: dataDir(), ...secrets, BACKUP_S3_ENDPOINT: 'http://127.0.0.1:7480', BACKUP_RETENTION: '0' });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringContaining('BACKUP_S3_BUCKET'),
        expect.stringContaining('BACKUP_S3_ACCESS_KEY_ID'),
        expect.stringContaining('BACKUP_S3_SECRET_ACCESS_KEY'),
        expect.stringContaining('BACKUP_RETENTION'),
      ]),
    );
  });
});

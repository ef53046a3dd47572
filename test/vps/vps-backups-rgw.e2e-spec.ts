import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { BackupStore } from '../../libs/vps/src/backups/backup-store';
import { BackupsJob } from '../../libs/vps/src/backups/backups.job';
import { S3BackupStore } from '../../libs/vps/src/backups/s3-backup-store';
import { simulatedDisk } from '../../libs/vps/src/compute/simulated-disk';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { cephTestsEnabled, dropBucket, rgwEnv } from '../support/ceph';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SLOW = 120_000;
const MIB = 1024 * 1024;

const sha256 = async (stream: AsyncIterable<Buffer>) => {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha: hash.digest('hex'), bytes };
};

/** `size` bytes of a repeated random block, as a stream in 1 MiB chunks; fails after `failAfter` bytes when given. */
function disk(size: number, failAfter?: number): { stream: Readable; sha: string } {
  const block = randomBytes(MIB);
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += MIB) hash.update(block.subarray(0, Math.min(MIB, size - at)));
  const stream = Readable.from(
    (async function* () {
      for (let at = 0; at < size; at += MIB) {
        if (failAfter !== undefined && at >= failAfter) throw new Error('the disk stopped answering');
        yield block.subarray(0, Math.min(MIB, size - at));
      }
    })(),
  );
  return { stream, sha: hash.digest('hex') };
}

/**
 * Backups in the one-node Ceph RGW of scripts/ensure-ceph.sh through its S3 API: the
 * BackupStore's S3 adapter with a bucket of its own, on the simulator's compute (256 KiB disks)
 * and with larger streams of its own for multipart.
 */
(cephTestsEnabled() ? describe : describe.skip)('VPS backups in Ceph RGW (S3 adapter)', () => {
  const bucket = `vps-backups-${randomUUID().slice(0, 8)}`;
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let s3: S3Client;
  let env: Record<string, string>;

  beforeAll(async () => {
    const rgw = rgwEnv();
    env = {
      COMPUTE_TRANSITION_DELAY_MS: '600000',
      BACKUP_S3_ENDPOINT: rgw.RGW_ADMIN_URL,
      BACKUP_S3_BUCKET: bucket,
      BACKUP_S3_ACCESS_KEY_ID: rgw.RGW_ADMIN_ACCESS_KEY,
      BACKUP_S3_SECRET_ACCESS_KEY: rgw.RGW_ADMIN_SECRET_KEY,
      BACKUP_S3_PART_MB: '5',
      BACKUP_RETENTION: '2',
    };
    s3 = new S3Client({
      endpoint: env.BACKUP_S3_ENDPOINT,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: env.BACKUP_S3_ACCESS_KEY_ID, secretAccessKey: env.BACKUP_S3_SECRET_ACCESS_KEY },
    });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    t = await startTestApp(env);
    owner = await createAccount(t);
    stranger = await createAccount(t);
  }, SLOW);

  afterAll(async () => {
    if (t) await t.close();
    if (!s3) return;
    await dropBucket(s3, bucket);
    s3.destroy();
  }, SLOW);

  const keys = async (prefix: string) =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key);
  const uploads = async (prefix: string) =>
    (await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }))).Uploads ?? [];
  const store = () => t.app.get(BackupStore);

  it('uses the S3 adapter when BACKUP_S3_ENDPOINT is set', () => {
    expect(store()).toBeInstanceOf(S3BackupStore);
  });

  it(
    'round trip: a 12 MiB stream goes up in 5 MiB parts and comes back byte for byte',
    async () => {
      const key = `test/${randomUUID()}.qcow2`;
      const source = disk(12 * MIB);
      expect(await store().put(key, source.stream)).toBe(12 * MIB);
      expect(await uploads(key)).toEqual([]);
      expect(await sha256(await store().get(key))).toEqual({ sha: source.sha, bytes: 12 * MIB });
      await store().remove(key);
      expect(await keys(key)).toEqual([]);
    },
    SLOW,
  );

  it(
    'a stream that fails mid-upload leaves neither an object nor an incomplete upload',
    async () => {
      const key = `test/${randomUUID()}.qcow2`;
      await expect(store().put(key, disk(12 * MIB, 7 * MIB).stream)).rejects.toThrow(/could not be uploaded/);
      expect(await keys(key)).toEqual([]);
      expect(await uploads(key)).toEqual([]);
    },
    SLOW,
  );

  it(
    "a VPS's backup is stored in the bucket, listed, restored from it; retention keeps exactly two objects",
    async () => {
      const image = await createImage(t, { gib: 2 });
      const vps = await createService(t, owner.id, { image: image.slug });
      const made: string[] = [];
      for (let i = 0; i < 3; i++) {
        const result = (await t.app.get(BackupRunner).run(vps.id, 'operator')) as { backupId: string; status: string };
        expect(result.status).toBe('available');
        made.push(result.backupId);
      }
      expect((await keys(`vps/${vps.id}/`)).sort()).toEqual(
        made
          .slice(1)
          .map((id) => `vps/${vps.id}/${id}.qcow2`)
          .sort(),
      );
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `vps/${vps.id}/${made[2]}.qcow2` }));
      expect(await sha256(object.Body as Readable)).toEqual(await sha256(simulatedDisk(vps.id)));

      const listed = (await t.get(`/api/services/${vps.id}/instance/backups`, owner.bearer).expect(200)).body.data;
      expect(listed.map((b: { id: string; status: string }) => [b.id, b.status])).toEqual([
        [made[2], 'available'],
        [made[1], 'available'],
      ]);
      await t.get(`/api/services/${vps.id}/instance/backups`, stranger.bearer).expect(404);

      const restore = await request(t.http)
        .post(`/api/services/${vps.id}/instance/backups/${made[1]}/restore`)
        .set('Authorization', owner.bearer)
        .expect(202);
      // The simulator reads the whole backup from the gateway before its task exists.
      await waitFor(
        () =>
          t.db.query(
            `WITH done AS (UPDATE compute_simulator_tasks SET completes_at = now() WHERE id = $1 RETURNING id) SELECT id FROM done`,
            [restore.body.id],
          ),
        (rows: unknown[]) => rows.length === 1,
        30_000,
      );
      const action = await waitFor(
        async () => (await t.get(`/api/services/${vps.id}/instance/actions/${restore.body.id}`, owner.bearer).expect(200)).body,
        (a: { status: string }) => a.status !== 'running',
        30_000,
      );
      expect(action).toMatchObject({ type: 'restore', status: 'succeeded' });
    },
    SLOW,
  );

  it(
    'a backup whose process died mid-upload (an incomplete multipart upload, a lease not renewed) is failed and its upload aborted; the next one succeeds',
    async () => {
      const image = await createImage(t, { gib: 2 });
      const vps = await createService(t, owner.id, { image: image.slug });
      const id = randomUUID();
      const key = `vps/${vps.id}/${id}.qcow2`;
      // What kill -9 leaves behind: the upload begun, a part sent, never completed nor aborted.
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: randomBytes(5 * MIB) }));
      await t.db.query(
        `INSERT INTO vps_backups (id, service_id, account_id, status, trigger, storage_key, heartbeat_at)
         VALUES ($1, $2, $3, 'running', 'schedule', $4, now() - interval '10 minutes')`,
        [id, vps.id, owner.id, key],
      );
      expect((await uploads(key)).length).toBe(1);

      expect(await t.app.get(BackupsJob).failInterrupted()).toBeGreaterThanOrEqual(1);
      expect(await uploads(key)).toEqual([]);
      expect(await keys(`vps/${vps.id}/`)).toEqual([]);
      const [failed] = (await t.get(`/api/services/${vps.id}/instance/backups`, owner.bearer).expect(200)).body.data;
      expect(failed).toMatchObject({ id, status: 'failed', error: { code: 'interrupted' } });

      const next = (await t.app.get(BackupRunner).run(vps.id, 'operator')) as { backupId: string; status: string };
      expect(next.status).toBe('available');
      expect(await keys(`vps/${vps.id}/`)).toEqual([`vps/${vps.id}/${next.backupId}.qcow2`]);
    },
    SLOW,
  );
});

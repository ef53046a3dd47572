import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { DEPLOYMENT_NS } from '../../libs/vps/src/compute/libvirt/domain-xml';
import { cephTestsEnabled, dropBucket, rgwEnv } from '../support/ceph';
import { BOOT_MS, untilAgentAnswers } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, removeDomain, virsh } from '../support/libvirt';

/**
 * A backup of a running VPS on the local qemu:///system to the one-node Ceph RGW, with
 * the Debian test image (cloud-init, qemu-guest-agent): a file written before the backup is on the
 * disk restored from it after the VPS's disk and seed volumes were deleted by hand, one written
 * after is not; a restore also defines a domain that is gone. PostgreSQL only, like the other
 * libvirt suites; run under flock /tmp/guest-tests.lock.
 */
const enabled = guestSuiteInThisPass() && cephTestsEnabled();

const POOL = 'default';
const compute = guestCompute('26000-26999');
const bucket = `vps-backups-${randomUUID().slice(0, 8)}`;

(enabled ? describe : describe.skip)('Backups of a running VPS to Ceph RGW, restored (libvirt, real cloud image)', () => {
  const g = new GuestSuite('backup');
  let s3: S3Client;
  let backupId: string;
  let hostKey: string;

  beforeAll(async () => {
    const rgw = rgwEnv();
    const store = { accessKeyId: rgw.RGW_ADMIN_ACCESS_KEY, secretAccessKey: rgw.RGW_ADMIN_SECRET_KEY };
    s3 = new S3Client({ endpoint: rgw.RGW_ADMIN_URL, region: 'us-east-1', forcePathStyle: true, credentials: store });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await g.start({
      ...compute,
      BACKUP_S3_ENDPOINT: rgw.RGW_ADMIN_URL,
      BACKUP_S3_BUCKET: bucket,
      BACKUP_S3_ACCESS_KEY_ID: store.accessKeyId,
      BACKUP_S3_SECRET_ACCESS_KEY: store.secretAccessKey,
    });
  }, BOOT_MS);

  afterAll(async () => {
    await g.removeVps();
    if (s3) {
      await dropBucket(s3, bucket);
      s3.destroy();
    }
    await g.stop();
  });

  it(
    'backs the running VPS up live to the gateway, filesystem-consistent; the hypervisor keeps no copy',
    async () => {
      await g.provision();
      expect((await g.sshWhenUp('echo before > /root/first && sync && cat /root/first')).stdout).toBe('before');
      hostKey = (await g.sshWhenUp('cat /etc/ssh/ssh_host_ed25519_key.pub')).stdout;
      await untilAgentAnswers(`svc-${g.vps.id}`);
      const made = (await g.t.app.get(BackupRunner).run(g.vps.id, 'operator')) as { backupId: string; status: string; error?: string };
      expect(made).toMatchObject({ status: 'available' });
      backupId = made.backupId;
      const [backup] = (await g.t.get(`/api/services/${g.vps.id}/instance/backups`, g.owner.bearer).expect(200)).body.data;
      expect(backup).toMatchObject({ id: backupId, status: 'available', consistency: 'filesystem' });
      const { Contents = [] } = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `vps/${g.vps.id}/` }));
      expect(Contents.map((o) => [o.Key, o.Size])).toEqual([[`vps/${g.vps.id}/${backupId}.qcow2`, backup.sizeBytes]]);
      expect(await virsh('vol-list', '--pool', POOL)).not.toContain(`img-${backupId}`);
      expect((await g.sshWhenUp('echo after > /root/second && sync && cat /root/second')).stdout).toBe('after');
    },
    BOOT_MS * 3,
  );

  const restore = async () => {
    const res = await request(g.t.http)
      .post(`/api/services/${g.vps.id}/instance/backups/${backupId}/restore`)
      .set('Authorization', g.owner.bearer)
      .expect(202);
    expect(await g.settle(res.body.id)).toMatchObject({ type: 'restore', status: 'succeeded', error: null });
  };
  const deleteVolumes = async () => {
    for (const volume of [`svc-${g.vps.id}-root.qcow2`, `svc-${g.vps.id}-seed.iso`]) await virsh('vol-delete', '--pool', POOL, volume);
    expect(await virsh('vol-list', '--pool', POOL)).not.toContain(`svc-${g.vps.id}-`);
  };

  it(
    "restores it after the VPS's disk and seed volumes were deleted by hand: the file written before is there, the one written after is not",
    async () => {
      await virsh('destroy', `svc-${g.vps.id}`);
      await deleteVolumes();
      await restore();
      const after = await g.sshWhenUp('cat /root/first; test -e /root/second && echo second-there || echo second-gone');
      expect(after.stdout.split('\n')).toEqual(['before', 'second-gone']);
      expect(await virsh('vol-dumpxml', '--pool', POOL, `svc-${g.vps.id}-root.qcow2`)).not.toContain('<backingStore>');
      // The seed made again carries the install's instance-id: cloud-init did not run its first boot again (new host keys).
      expect(await virsh('vol-list', '--pool', POOL)).toContain(`svc-${g.vps.id}-seed.iso`);
      expect((await g.sshWhenUp('cat /etc/ssh/ssh_host_ed25519_key.pub')).stdout).toBe(hostKey);
    },
    BOOT_MS * 3,
  );

  it(
    'restores it after its domain was undefined as well: defined again, marked as this deployment’s, and booted',
    async () => {
      await removeDomain(`svc-${g.vps.id}`);
      await deleteVolumes();
      await restore();
      expect(await virsh('domstate', `svc-${g.vps.id}`)).toBe('running');
      expect(await virsh('dumpxml', `svc-${g.vps.id}`)).toContain(DEPLOYMENT_NS);
      expect((await g.sshWhenUp('cat /root/first')).stdout).toBe('before');
      expect((await g.sshWhenUp('cat /etc/ssh/ssh_host_ed25519_key.pub')).stdout).toBe(hostKey);
    },
    BOOT_MS * 3,
  );
});

import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pino from 'pino';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { DEPLOYMENT_NS } from '../../libs/vps/src/compute/libvirt/domain-xml';
import { cephTestsEnabled, rgwEnv } from '../support/ceph';
import { agentPing, BOOT_MS, untilAgentAnswers } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, removeDomain, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * A day in the life of one VPS on the local qemu:///system, with the Debian test image
 * (cloud-init, qemu-guest-agent): three stories that each booted a guest of their own (the root
 * password, snapshots, backups), told on ONE guest, since a boot under TCG is most of each one's
 * time. In this order, each step on what the ones before left:
 *
 *  1. root password: provisioned, the password reset twice through the guest agent; root's
 *     /etc/shadow entry verifies it with crypt(3) over SSH (the password on ssh's stdin, never in a
 *     process's arguments).
 *  2. backups (Ceph RGW): /root/first written, a live backup to the gateway, /root/second written;
 *     restored after the disk and seed volumes were deleted by hand (first there, second gone, the
 *     same SSH host key), then again after the domain was undefined too.
 *  3. snapshots: /root/first written again, a live snapshot, /root/second written again (the restore
 *     took it away); rebuilt from the snapshot (first there, second gone, a new instance-id, the
 *     disk built on the snapshot's volume).
 *  4. root password: the guest agent stopped, 409 guest_agent_unavailable; the VPS stopped, 409
 *     invalid_state.
 *  5. snapshots: the stopped VPS snapshotted (a flat copy of a disk built on a snapshot); the live
 *     snapshot kept while the VPS is built on it, deleted with its volume once it is terminated.
 *  6. root password: the passwords are in no log line (trace level) and no activity entry.
 *
 * The backups come before the snapshots because each story writes /root/second after its copy and
 * expects it gone from what is made from the copy: restored first, the disk the snapshot is taken of
 * holds no /root/second; and the rebuild from the snapshot comes after the restores, so that the
 * disk the cold snapshot copies and the last step's refusal stand on that snapshot.
 * The backup steps need the gateway as well (cephTestsEnabled), and are skipped without it; no
 * other step needs what they leave. In CI, the PGlite pass (guestSuiteInThisPass).
 */
const enabled = guestSuiteInThisPass();
const backupsEnabled = enabled && cephTestsEnabled();
const itBackups = backupsEnabled ? it : it.skip;

const POOL = 'default';
const compute = guestCompute('26000-26999');
const bucket = `vps-backups-${randomUUID().slice(0, 8)}`;

/** Prints `match` when the password on stdin is root's in /etc/shadow, `differ` otherwise. */
const CHECK_ROOT_PASSWORD =
  'perl -e \'chomp(my $pw = <STDIN>); open(my $f, "<", "/etc/shadow") or die "shadow: $!"; ' +
  'while (<$f>) { my @x = split /:/; print(crypt($pw, $x[1]) eq $x[1] ? "match" : "differ") if $x[0] eq "root" }\'';

(enabled ? describe : describe.skip)(
  'A VPS day: root password, backups, snapshots on one guest (libvirt, real cloud image, QEMU guest agent)',
  () => {
    const g = new GuestSuite('day');
    const logLines: string[] = [];
    const passwords: string[] = [];
    let s3: S3Client | undefined;
    let backupId: string;
    let hostKey: string;
    let snapshot: { id: string; slug: string };
    let cold: string | undefined;

    beforeAll(async () => {
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString());
          done();
        },
      });
      let backupStore: Record<string, string> = {};
      if (backupsEnabled) {
        const rgw = rgwEnv();
        const store = { accessKeyId: rgw.RGW_ADMIN_ACCESS_KEY, secretAccessKey: rgw.RGW_ADMIN_SECRET_KEY };
        s3 = new S3Client({ endpoint: rgw.RGW_ADMIN_URL, region: 'us-east-1', forcePathStyle: true, credentials: store });
        await s3.send(new CreateBucketCommand({ Bucket: bucket }));
        backupStore = {
          BACKUP_S3_ENDPOINT: rgw.RGW_ADMIN_URL,
          BACKUP_S3_BUCKET: bucket,
          BACKUP_S3_ACCESS_KEY_ID: store.accessKeyId,
          BACKUP_S3_SECRET_ACCESS_KEY: store.secretAccessKey,
        };
      }
      await g.start({ ...compute, ...backupStore, LOG_LEVEL: 'trace' }, { logger: pino({ level: 'trace' }, sink) });
    }, BOOT_MS);

    afterAll(async () => {
      await g.removeVps();
      if (snapshot) {
        await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer);
        await virsh('vol-delete', '--pool', POOL, `img-${snapshot.id}`).catch(() => undefined);
      }
      if (cold) await virsh('vol-delete', '--pool', POOL, `img-${cold}`).catch(() => undefined);
      if (s3) {
        const { Contents = [] } = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
        for (const object of Contents) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key }));
        await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
        s3.destroy();
      }
      await g.stop();
    });

    const ssh = (command: string, input = '') => g.ssh(command, input);

    const reset = () => request(g.t.http).post(`/api/services/${g.vps.id}/instance/reset-password`).set('Authorization', g.owner.bearer);
    /** The command's answer, tried again while ssh itself fails (255: cloud-init restarts sshd once late in the first boot). */
    const sshRun = (command: string, input = '') =>
      waitForOrFail(
        () => ssh(command, input),
        (res) => res.code !== 255,
        60_000,
        (res) => `ssh kept failing: ${res.stderr}`,
      );

    const rootHash = async () => {
      const res = await sshRun(`awk -F: '$1 == "root" {print $2}' /etc/shadow`);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      return res.stdout;
    };

    // 1. Root password, on the VPS as provisioned.
    it(
      "root password: sets the password in the guest: root's /etc/shadow entry holds it, a second reset replaces it",
      async () => {
        await g.provision();
        await g.sshWhenUp('cloud-init status --wait > /dev/null || true');
        await untilAgentAnswers(`svc-${g.vps.id}`);
        const before = await rootHash();

        const first = await reset().expect(200);
        expect(first.headers['cache-control']).toBe('no-store');
        expect(first.body.rootPassword).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);
        passwords.push(first.body.rootPassword);
        const after = await rootHash();
        expect(after).not.toBe(before);
        expect(after).toMatch(/^\$/);
        expect((await sshRun(CHECK_ROOT_PASSWORD, `${first.body.rootPassword}\n`)).stdout).toBe('match');
        expect((await sshRun(CHECK_ROOT_PASSWORD, 'not-the-password\n')).stdout).toBe('differ');

        const second = await reset().expect(200);
        passwords.push(second.body.rootPassword);
        expect(second.body.rootPassword).not.toBe(first.body.rootPassword);
        expect((await sshRun(CHECK_ROOT_PASSWORD, `${second.body.rootPassword}\n`)).stdout).toBe('match');
        expect((await sshRun(CHECK_ROOT_PASSWORD, `${first.body.rootPassword}\n`)).stdout).toBe('differ');
      },
      BOOT_MS * 2,
    );

    // 2. Backups, while the VPS still runs its install (the restore's seed carries the install's instance-id).
    itBackups(
      'backups: backs the running VPS up live to the gateway, filesystem-consistent; the hypervisor keeps no copy',
      async () => {
        expect((await g.sshWhenUp('echo before > /root/first && sync && cat /root/first')).stdout).toBe('before');
        hostKey = (await g.sshWhenUp('cat /etc/ssh/ssh_host_ed25519_key.pub')).stdout;
        await untilAgentAnswers(`svc-${g.vps.id}`);
        const made = (await g.t.app.get(BackupRunner).run(g.vps.id, 'operator')) as { backupId: string; status: string; error?: string };
        expect(made).toMatchObject({ status: 'available' });
        backupId = made.backupId;
        const [backup] = (await g.t.get(`/api/services/${g.vps.id}/instance/backups`, g.owner.bearer).expect(200)).body.data;
        expect(backup).toMatchObject({ id: backupId, status: 'available', consistency: 'filesystem' });
        const { Contents = [] } = await s3!.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `vps/${g.vps.id}/` }));
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

    itBackups(
      "backups: restores it after the VPS's disk and seed volumes were deleted by hand: the file written before is there, the one written after is not",
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

    itBackups(
      'backups: restores it after its domain was undefined as well: defined again, marked as this deployment’s, and booted',
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

    // 3. Snapshots. The restores above left /root/first ('before') and no /root/second; this step
    // writes both again itself, so it holds with the backup steps skipped too.
    it(
      'snapshots: snapshots the running VPS live: the image is a standalone volume of the pool, its filesystems frozen by the guest agent',
      async () => {
        expect((await g.sshWhenUp('echo before > /root/first && sync && cat /root/first')).stdout).toBe('before');
        // The agent starts with the guest; a snapshot taken before it answers is crash-consistent, so wait for it.
        await untilAgentAnswers(`svc-${g.vps.id}`);

        const started = await request(g.t.http)
          .post(`/api/services/${g.vps.id}/instance/snapshots`)
          .set('Authorization', g.owner.bearer)
          .send({ name: 'with first file' })
          .expect(202);
        const done = await g.settle(started.body.id);
        expect(done).toMatchObject({ type: 'snapshot', status: 'succeeded', error: null, snapshot: { consistency: 'filesystem' } });
        snapshot = (await g.t.get(`/api/images/${done.snapshot.imageId}`, g.owner.bearer).expect(200)).body;
        expect(snapshot).toMatchObject({ type: 'snapshot', status: 'available', createdFrom: { serviceId: g.vps.id }, minDiskGb: 25 });
        const volume = await virsh('vol-dumpxml', '--pool', POOL, `img-${snapshot.id}`);
        expect(volume).not.toContain('<backingStore>');
        expect(volume).toMatch(/<capacity unit='bytes'>26843545600<\/capacity>/);
        expect((await g.t.get(`/api/images/${snapshot.id}`, g.owner.bearer)).body.sizeBytes).toBe(
          Number(/<allocation unit='bytes'>(\d+)</.exec(volume)![1]),
        );
        // The guest runs on, its filesystems thawed: it writes again.
        expect((await g.sshWhenUp('echo after > /root/second && sync && cat /root/second')).stdout).toBe('after');
        expect((await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer)).body.instance.powerState).toBe('running');
      },
      BOOT_MS * 2,
    );

    it(
      'snapshots: rebuilds from the snapshot: the file written before it is there, the one written after is not',
      async () => {
        const rebuild = await request(g.t.http)
          .post(`/api/services/${g.vps.id}/instance/rebuild`)
          .set('Authorization', g.owner.bearer)
          .send({ image: snapshot.slug })
          .expect(202);
        expect(await g.settle(rebuild.body.id)).toMatchObject({ status: 'succeeded', error: null });
        const after = await g.sshWhenUp(
          'cat /var/lib/cloud/data/instance-id; cat /root/first; test -e /root/second && echo second-there || echo second-gone',
        );
        expect(after.stdout.split('\n')).toEqual([`iid-${rebuild.body.id}`, 'before', 'second-gone']);
        expect(await virsh('vol-dumpxml', '--pool', POOL, `svc-${g.vps.id}-root.qcow2`)).toContain(`img-${snapshot.id}`);
      },
      BOOT_MS * 2,
    );

    // 4. Root password, on the rebuilt VPS: the agent stopped, then the VPS.
    it(
      'root password: answers 409 guest_agent_unavailable once the guest agent is stopped, and the password stays as it was',
      async () => {
        // The rebuild booted the guest anew: as after the provisioning in the first step, cloud-init's
        // first boot (of the rebuild's instance-id) is over and the agent answers before it is stopped.
        await g.sshWhenUp('cloud-init status --wait > /dev/null || true');
        await untilAgentAnswers(`svc-${g.vps.id}`);
        const hash = await rootHash();
        expect((await sshRun('systemctl stop qemu-guest-agent')).code).toBe(0);
        // libvirt sees the agent's port close: its ping fails from then on.
        await waitForOrFail(
          () => agentPing(`svc-${g.vps.id}`),
          (answer) => !answer.includes('"return"'),
          60_000,
          (answer) => `the agent still answers: ${answer}`,
        );
        const res = await reset().expect(409);
        expect(res.body).toMatchObject({ code: 'guest_agent_unavailable', detail: expect.stringMatching(/qemu-guest-agent/) });
        expect(await rootHash()).toBe(hash);
      },
      BOOT_MS,
    );

    // The one stop of the VPS: the root password's invalid_state and the cold snapshot after it both
    // need it stopped (the snapshot story's own stop and its assertion are here).
    it(
      'root password: answers 409 invalid_state for a stopped VPS',
      async () => {
        const stop = await request(g.t.http)
          .post(`/api/services/${g.vps.id}/instance/stop`)
          .set('Authorization', g.owner.bearer)
          .expect(202);
        const done = await waitFor(
          async () => (await g.t.get(`/api/services/${g.vps.id}/instance/actions/${stop.body.id}`, g.owner.bearer).expect(200)).body,
          (action) => action.status !== 'running',
          BOOT_MS,
        );
        expect(done.status).toBe('succeeded');
        expect(await g.settle(stop.body.id)).toMatchObject({ status: 'succeeded' });
        expect((await reset().expect(409)).body.code).toBe('invalid_state');
      },
      BOOT_MS,
    );

    // 5. Snapshots of the stopped VPS (stopped by the step above), built on the live snapshot since the rebuild.
    it(
      'snapshots: snapshots the VPS stopped: a flat copy of a disk that is itself built on a snapshot',
      async () => {
        expect((await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer)).body.instance.powerState).toBe('stopped');
        const started = await request(g.t.http)
          .post(`/api/services/${g.vps.id}/instance/snapshots`)
          .set('Authorization', g.owner.bearer)
          .send({ name: 'stopped' })
          .expect(202);
        const done = await g.settle(started.body.id);
        expect(done).toMatchObject({ status: 'succeeded', snapshot: { consistency: 'filesystem' } });
        cold = done.snapshot.imageId;
        const volume = await virsh('vol-dumpxml', '--pool', POOL, `img-${cold}`);
        expect(volume).not.toContain('<backingStore>');
        expect((await g.t.get(`/api/images/${cold}`, g.owner.bearer).expect(200)).body).toMatchObject({
          status: 'available',
          type: 'snapshot',
        });
        expect((await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer)).body.instance.powerState).toBe('stopped');
        await request(g.t.http).delete(`/api/images/${cold}`).set('Authorization', g.owner.bearer).expect(204);
        expect(await virsh('vol-list', POOL)).not.toContain(`img-${cold}`);
      },
      BOOT_MS,
    );

    it('snapshots: keeps the snapshot while the VPS is built on it, and deletes it with its volume once the VPS is terminated', async () => {
      const refused = await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer).expect(409);
      expect(refused.body.code).toBe('invalid_state');
      expect((await runCliIn(g.t.app, ['service:set-status', '--id', g.vps.id, '--status', 'terminated'])).code).toBe(0);
      expect(await virsh('vol-list', POOL)).toContain(`img-${snapshot.id}`);
      await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer).expect(204);
      expect(await virsh('vol-list', POOL)).not.toContain(`img-${snapshot.id}`);
    });

    // 6. Root password: what the whole day logged (at trace level) and recorded.
    it('root password: the passwords are in no log line and no activity entry', async () => {
      expect(passwords).toHaveLength(2);
      const log = logLines.join('');
      // The log did record the virsh failure of the agent-less reset.
      expect(log).toMatch(/virsh set-user-password failed/);
      const activity = JSON.stringify(await g.t.db.query('SELECT * FROM activity_events WHERE account_id = $1', [g.owner.id]));
      expect(activity).toContain('instance.password_reset');
      for (const password of passwords) {
        expect({ where: 'log', found: log.includes(password) }).toEqual({ where: 'log', found: false });
        expect({ where: 'activity', found: activity.includes(password) }).toEqual({ where: 'activity', found: false });
      }
    });
  },
);

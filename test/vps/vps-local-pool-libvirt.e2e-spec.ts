import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { DEPLOYMENT_NS } from '../../libs/vps/src/compute/libvirt/domain-xml';
import { MachineReconciler } from '../../libs/vps/src/instances/reconcile/machine-reconciler';
import { cephTestsEnabled, dropBucket, rgwEnv } from '../support/ceph';
import { agentPing, BOOT_MS, hostKeyAt, untilAgentAnswers, untilSshUp } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, removeDomain, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';
import { rescueTestImageFile, testImageFile } from '../support/test-images';
import { waitFor, waitForOrFail } from '../support/wait-for';
import { capturedLog } from '../support/captured-log';

/**
 * One running VPS on the local qemu:///system's `default` pool, with the Debian test image
 * (cloud-init, qemu-guest-agent), through what a customer does to it after the first login; one
 * guest for the whole file (a boot is a minute or more under TCG), in CI once, in the PGlite pass.
 * - Snapshots: live (filesystems frozen by the agent) and stopped, each a standalone volume; a file
 *   written before the snapshot is on the disk rebuilt from it, one written after is not.
 * - The root password reset: the password the API answers is the one root's /etc/shadow entry holds,
 *   checked with crypt(3) over SSH (on ssh's stdin, never in arguments); 409 guest_agent_unavailable
 *   with the agent stopped, 409 invalid_state stopped; no password in a log line or activity entry.
 * - Backups to the one-node Ceph RGW (where it runs): live and filesystem-consistent, restored after
 *   the VPS's volumes were deleted by hand and after its domain was undefined too, host keys kept.
 * - Rescue: a customer breaks sshd, boots the rescue system (scripts/make-rescue-image.sh's image,
 *   with host keys of its own), mounts /dev/vdb1, repairs sshd_config, unrescues and gets back in.
 */
const enabled = guestSuiteInThisPass();
const withBackups = cephTestsEnabled();
const itWithBackups = withBackups ? it : it.skip;

const POOL = 'default';
const compute = guestCompute('25000-25999');
const bucket = `vps-backups-${randomUUID().slice(0, 8)}`;

/** Prints `match` when the password on stdin is root's in /etc/shadow, `differ` otherwise. */
const CHECK_ROOT_PASSWORD =
  'perl -e \'chomp(my $pw = <STDIN>); open(my $f, "<", "/etc/shadow") or die "shadow: $!"; ' +
  'while (<$f>) { my @x = split /:/; print(crypt($pw, $x[1]) eq $x[1] ? "match" : "differ") if $x[0] eq "root" }\'';

/** The <disk> element of the domain's XML with this target device. */
const diskOf = (xml: string, dev: string): string | undefined =>
  [...xml.matchAll(/<disk [\s\S]*?<\/disk>/g)].map((m) => m[0]).find((disk) => disk.includes(`<target dev='${dev}'`));

(enabled ? describe : describe.skip)(
  'One running VPS on the local pool: snapshots, the root password, backups and rescue (libvirt, real cloud image)',
  () => {
    const g = new GuestSuite('local');
    const volumes = (id: string) => [`svc-${id}-root.qcow2`, `svc-${id}-seed.iso`, `svc-${id}-rescue.qcow2`, `svc-${id}-rescue-seed.iso`];
    let s3: S3Client | undefined;
    let snapshot: { id: string; slug: string };
    let cold: string | undefined;
    let backupId: string;
    let hostKey: string;
    const captured = capturedLog();
    const passwords: string[] = [];

    beforeAll(async () => {
      const backups: Record<string, string> = {};
      if (withBackups) {
        const rgw = rgwEnv();
        const store = { accessKeyId: rgw.RGW_ADMIN_ACCESS_KEY, secretAccessKey: rgw.RGW_ADMIN_SECRET_KEY };
        s3 = new S3Client({ endpoint: rgw.RGW_ADMIN_URL, region: 'us-east-1', forcePathStyle: true, credentials: store });
        await s3.send(new CreateBucketCommand({ Bucket: bucket }));
        Object.assign(backups, {
          BACKUP_S3_ENDPOINT: rgw.RGW_ADMIN_URL,
          BACKUP_S3_BUCKET: bucket,
          BACKUP_S3_ACCESS_KEY_ID: store.accessKeyId,
          BACKUP_S3_SECRET_ACCESS_KEY: store.secretAccessKey,
        });
      }
      await g.start({ ...compute, ...backups, LOG_LEVEL: 'trace' }, captured.logging);
      const slug = `rescue-${randomUUID().slice(0, 8)}`;
      const added = await runCliIn(g.t.app, [
        'image:add',
        '--slug',
        slug,
        '--name',
        slug,
        '--file',
        rescueTestImageFile(testImageFile()),
        '--rescue',
      ]);
      expect(added.lines[0]).toMatchObject({ slug, status: 'available' });
      g.slugs.push(slug);
    }, BOOT_MS);

    afterAll(async () => {
      await g.removeVps(volumes);
      if (snapshot) {
        await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer);
        await virsh('vol-delete', '--pool', POOL, `img-${snapshot.id}`).catch(() => undefined);
      }
      if (cold) await virsh('vol-delete', '--pool', POOL, `img-${cold}`).catch(() => undefined);
      if (s3) {
        await dropBucket(s3, bucket);
        s3.destroy();
      }
      await g.stop(volumes);
    });

    const post = (path: string) =>
      request(g.t.http).post(`/api/services/${g.vps.id}/instance/${path}`).set('Authorization', g.owner.bearer);
    const reset = () => post('reset-password');
    const instance = async () => (await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer).expect(200)).body.instance;
    /** The command's answer, tried again while ssh itself fails (255: cloud-init restarts sshd once late in the first boot). */
    const sshRun = (command: string, input = '') =>
      waitForOrFail(
        () => g.ssh(command, input),
        (res) => res.code !== 255,
        60_000,
        (res) => `ssh kept failing: ${res.stderr}`,
      );
    /** Like sshRun, for as long as a boot takes. */
    const sshWhenUp = (command: string, input = '') =>
      untilSshUp(
        () => g.ssh(command, input),
        (res) => `ssh never got in: ${res.code} ${res.stderr}`,
        (res) => res.code !== 255,
      );
    const rootHash = async () => {
      const res = await sshRun(`awk -F: '$1 == "root" {print $2}' /etc/shadow`);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      return res.stdout;
    };

    it(
      'snapshots the running VPS live: the image is a standalone volume of the pool, its filesystems frozen by the guest agent',
      async () => {
        await g.provision();
        expect((await g.sshWhenUp('echo before > /root/first && sync && cat /root/first')).stdout).toBe('before');
        // The agent starts with the guest; a snapshot taken before it answers is crash-consistent, so wait for it.
        await untilAgentAnswers(`svc-${g.vps.id}`);

        const started = await post('snapshots').send({ name: 'with first file' }).expect(202);
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
        expect((await instance()).powerState).toBe('running');
      },
      BOOT_MS * 2,
    );

    it(
      "sets the password in the guest: root's /etc/shadow entry holds it, a second reset replaces it",
      async () => {
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

    itWithBackups(
      'backs the running VPS up live to the gateway, filesystem-consistent; the hypervisor keeps no copy',
      async () => {
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
        expect((await g.sshWhenUp('echo later > /root/third && sync && cat /root/third')).stdout).toBe('later');
      },
      BOOT_MS,
    );

    const restore = async () => {
      const res = await post(`backups/${backupId}/restore`).expect(202);
      expect(await g.settle(res.body.id)).toMatchObject({ type: 'restore', status: 'succeeded', error: null });
    };
    const deleteVolumes = async () => {
      for (const volume of [`svc-${g.vps.id}-root.qcow2`, `svc-${g.vps.id}-seed.iso`]) await virsh('vol-delete', '--pool', POOL, volume);
      expect(await virsh('vol-list', '--pool', POOL)).not.toContain(`svc-${g.vps.id}-`);
    };

    itWithBackups(
      "restores it after the VPS's disk and seed volumes were deleted by hand: the files written before are there, the one written after is not",
      async () => {
        await virsh('destroy', `svc-${g.vps.id}`);
        await deleteVolumes();
        await restore();
        const after = await g.sshWhenUp('cat /root/first /root/second; test -e /root/third && echo third-there || echo third-gone');
        expect(after.stdout.split('\n')).toEqual(['before', 'after', 'third-gone']);
        expect(await virsh('vol-dumpxml', '--pool', POOL, `svc-${g.vps.id}-root.qcow2`)).not.toContain('<backingStore>');
        // The seed made again carries the install's instance-id: cloud-init did not run its first boot again (new host keys).
        expect(await virsh('vol-list', '--pool', POOL)).toContain(`svc-${g.vps.id}-seed.iso`);
        expect((await g.sshWhenUp('cat /etc/ssh/ssh_host_ed25519_key.pub')).stdout).toBe(hostKey);
      },
      BOOT_MS * 3,
    );

    itWithBackups(
      'restores it after its domain was undefined as well, once reconciliation marked it lost: defined again, marked as this deployment’s, and booted',
      async () => {
        await removeDomain(`svc-${g.vps.id}`);
        await deleteVolumes();
        // Marked by this pass or the app's own one (every minute), whichever comes first; only a restore may begin then.
        const reconciler = g.t.app.get(MachineReconciler);
        await waitForOrFail(
          async () => {
            await reconciler.reconcile();
            const [row] = await g.t.db.query<{ power_state: string }[]>('SELECT power_state FROM vps_instances WHERE service_id = $1', [
              g.vps.id,
            ]);
            return row;
          },
          (row) => row.power_state === 'error',
          60_000,
          (row) => `recorded ${row.power_state}`,
        );
        expect((await post('start').expect(409)).body).toMatchObject({ code: 'invalid_state', detail: expect.stringContaining('missing') });
        await restore();
        expect((await instance()).powerState).toBe('running');
        expect(await virsh('domstate', `svc-${g.vps.id}`)).toBe('running');
        expect(await virsh('dumpxml', `svc-${g.vps.id}`)).toContain(DEPLOYMENT_NS);
        expect((await g.sshWhenUp('cat /root/first')).stdout).toBe('before');
        expect((await g.sshWhenUp('cat /etc/ssh/ssh_host_ed25519_key.pub')).stdout).toBe(hostKey);
      },
      BOOT_MS * 3,
    );

    it(
      'repairs a VPS whose sshd refuses every key: rescue, fix the disk at /dev/vdb1, unrescue; the data is still there',
      async () => {
        const finished = (actionId: string) =>
          waitFor(
            async () => (await g.t.get(`/api/services/${g.vps.id}/instance/actions/${actionId}`, g.owner.bearer).expect(200)).body,
            (action) => action.status !== 'running',
            BOOT_MS,
          );
        const hostname = (await sshWhenUp('cloud-init status --wait > /dev/null; hostname')).stdout;
        expect(hostname).not.toBe('rescue');
        const own = (await instance()).ssh;
        expect(await hostKeyAt(own)).toBe(own.hostKeys[0].publicKey);
        const token = randomUUID();
        expect((await g.ssh(`echo ${token} > /root/keep.txt && sync`)).code).toBe(0);
        // The customer's mistake: sshd looks for keys where there are none.
        expect((await g.ssh(`echo 'AuthorizedKeysFile /nonexistent' >> /etc/ssh/sshd_config && systemctl restart ssh`)).code).toBe(0);
        const locked = await waitForOrFail(
          () => g.ssh('true'),
          (r) => r.code === 255,
          60_000,
          (r) => `sshd still takes the key: ${r.code}`,
        );
        expect(locked.stderr).toMatch(/Permission denied/);

        const rescue = await post('rescue').send({}).expect(202);
        expect(rescue.headers['cache-control']).toBe('no-store');
        const password = rescue.body.rootPassword as string;
        expect(password).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);
        passwords.push(password);
        expect(await finished(rescue.body.id)).toMatchObject({ type: 'rescue', status: 'succeeded', error: null });
        expect(await instance()).toMatchObject({ powerState: 'running', rescue: true });
        const xml = await virsh('dumpxml', `svc-${g.vps.id}`);
        expect(diskOf(xml, 'vda')).toContain(`volume='svc-${g.vps.id}-rescue.qcow2'`);
        expect(diskOf(xml, 'vdb')).toContain(`volume='svc-${g.vps.id}-root.qcow2'`);
        expect(diskOf(xml, 'hdc')).toContain(`volume='svc-${g.vps.id}-rescue-seed.iso'`);

        // The rescue system, on the VPS's own address and port, with the account's key.
        expect((await sshWhenUp('cloud-init status --wait > /dev/null; hostname')).stdout).toBe('rescue');
        // The rescue system answers with a host key of its own, the one the service shows while in rescue (issue 58).
        const inRescue = (await instance()).ssh;
        expect(inRescue.hostKeys[0].publicKey).not.toBe(own.hostKeys[0].publicKey);
        expect(await hostKeyAt(inRescue)).toBe(inRescue.hostKeys[0].publicKey);
        expect((await g.ssh('findmnt -n -o SOURCE /')).stdout).toBe('/dev/vda1');
        expect((await g.ssh('findmnt -n /dev/vdb1 || echo unmounted')).stdout).toBe('unmounted');
        // root's password there is the one the 202 showed (only its hash reached the hypervisor).
        expect((await g.ssh(CHECK_ROOT_PASSWORD, `${password}\n`)).stdout).toBe('match');
        const repair = await g.ssh(
          'mount /dev/vdb1 /mnt && cat /mnt/root/keep.txt && sed -i "/^AuthorizedKeysFile \\/nonexistent$/d" /mnt/etc/ssh/sshd_config && umount /mnt',
        );
        expect({ code: repair.code, stdout: repair.stdout, stderr: repair.stderr }).toEqual({ code: 0, stdout: token, stderr: '' });

        const unrescue = await post('unrescue').expect(202);
        expect(await finished(unrescue.body.id)).toMatchObject({ type: 'unrescue', status: 'succeeded', error: null });
        await waitFor(instance, (i) => i.rescue === false, 30_000);
        const back = await virsh('dumpxml', `svc-${g.vps.id}`);
        expect(back).not.toContain('rescue');
        expect(diskOf(back, 'vda')).toContain(`volume='svc-${g.vps.id}-root.qcow2'`);
        expect(diskOf(back, 'vdb')).toBeUndefined();
        const left = await virsh('vol-list', '--pool', POOL);
        expect(left).toContain(`svc-${g.vps.id}-root.qcow2`);
        expect(left).not.toContain(`svc-${g.vps.id}-rescue`);

        // The VPS itself again, repaired: the key works and the file written before the rescue is there.
        const repaired = await sshWhenUp('hostname; cat /root/keep.txt');
        expect(repaired).toMatchObject({ code: 0, stdout: `${hostname}\n${token}` });
        expect((await instance()).ssh.hostKeys).toEqual(own.hostKeys);
        expect(await hostKeyAt(own)).toBe(own.hostKeys[0].publicKey);
      },
      BOOT_MS * 4,
    );

    it(
      'rebuilds from the snapshot: the file written before it is there, the one written after is not',
      async () => {
        const rebuild = await post('rebuild').send({ image: snapshot.slug }).expect(202);
        expect(await g.settle(rebuild.body.id)).toMatchObject({ status: 'succeeded', error: null });
        const after = await g.sshWhenUp(
          'cat /var/lib/cloud/data/instance-id; cat /root/first; test -e /root/second && echo second-there || echo second-gone',
        );
        expect(after.stdout.split('\n')).toEqual([`iid-${rebuild.body.id}`, 'before', 'second-gone']);
        expect(await virsh('vol-dumpxml', '--pool', POOL, `svc-${g.vps.id}-root.qcow2`)).toContain(`img-${snapshot.id}`);
      },
      BOOT_MS * 2,
    );

    it(
      'answers 409 guest_agent_unavailable once the guest agent is stopped, and the password stays as it was',
      async () => {
        // The disk rebuilt from the snapshot booted anew: its agent is up before it is stopped.
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

    it(
      'snapshots the VPS stopped: a flat copy of a disk that is itself built on a snapshot',
      async () => {
        const stop = await post('stop').expect(202);
        expect(await g.settle(stop.body.id)).toMatchObject({ status: 'succeeded' });
        const started = await post('snapshots').send({ name: 'stopped' }).expect(202);
        const done = await g.settle(started.body.id);
        expect(done).toMatchObject({ status: 'succeeded', snapshot: { consistency: 'filesystem' } });
        cold = done.snapshot.imageId;
        const volume = await virsh('vol-dumpxml', '--pool', POOL, `img-${cold}`);
        expect(volume).not.toContain('<backingStore>');
        expect((await g.t.get(`/api/images/${cold}`, g.owner.bearer).expect(200)).body).toMatchObject({
          status: 'available',
          type: 'snapshot',
        });
        expect((await instance()).powerState).toBe('stopped');
        await request(g.t.http).delete(`/api/images/${cold}`).set('Authorization', g.owner.bearer).expect(204);
        expect(await virsh('vol-list', POOL)).not.toContain(`img-${cold}`);
      },
      BOOT_MS,
    );

    it('answers 409 invalid_state for a password reset of a stopped VPS', async () => {
      expect((await instance()).powerState).toBe('stopped');
      expect((await reset().expect(409)).body.code).toBe('invalid_state');
    });

    it('the passwords are in no log line and no activity entry', async () => {
      expect(passwords).toHaveLength(3);
      const log = captured.lines.join('');
      // The log did record the virsh failure of the agent-less reset.
      expect(log).toMatch(/virsh set-user-password failed/);
      const activity = JSON.stringify(await g.t.db.query('SELECT * FROM activity_events WHERE account_id = $1', [g.owner.id]));
      expect(activity).toContain('instance.password_reset');
      for (const password of passwords) {
        expect({ where: 'log', found: log.includes(password) }).toEqual({ where: 'log', found: false });
        expect({ where: 'activity', found: activity.includes(password) }).toEqual({ where: 'activity', found: false });
      }
    });

    it('keeps the snapshot while the VPS is built on it, and deletes it with its volume once the VPS is terminated', async () => {
      const refused = await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer).expect(409);
      expect(refused.body.code).toBe('invalid_state');
      expect((await runCliIn(g.t.app, ['service:set-status', '--id', g.vps.id, '--status', 'terminated'])).code).toBe(0);
      expect(await virsh('vol-list', POOL)).toContain(`img-${snapshot.id}`);
      await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer).expect(204);
      expect(await virsh('vol-list', POOL)).not.toContain(`img-${snapshot.id}`);
    });
  },
);

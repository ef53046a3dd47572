import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { agentPing, BOOT_MS, untilAgentAnswers } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';
import { waitForOrFail } from '../support/wait-for';

/**
 * Snapshots and the root password reset of one running VPS on the local qemu:///system, with the
 * Debian test image (cloud-init, qemu-guest-agent); one guest for the whole file, booted twice
 * (provisioned, rebuilt from its snapshot), in CI once, in the PGlite pass (guestSuiteInThisPass).
 * Snapshots: a file written before the snapshot is on the disk rebuilt from it, one written after is
 * not; stopped, the copy is flattened by libvirt. The password: the one the API answers is the one
 * root's /etc/shadow entry now holds, checked inside the guest with crypt(3) over SSH (the password
 * goes to ssh on stdin, never in a process's arguments); with the agent stopped the answer is 409
 * guest_agent_unavailable, with the VPS stopped 409 invalid_state; no password is in a log line.
 */
const enabled = guestSuiteInThisPass();

const POOL = 'default';
const compute = guestCompute('25000-25999');

/** Prints `match` when the password on stdin is root's in /etc/shadow, `differ` otherwise. */
const CHECK_ROOT_PASSWORD =
  'perl -e \'chomp(my $pw = <STDIN>); open(my $f, "<", "/etc/shadow") or die "shadow: $!"; ' +
  'while (<$f>) { my @x = split /:/; print(crypt($pw, $x[1]) eq $x[1] ? "match" : "differ") if $x[0] eq "root" }\'';

(enabled ? describe : describe.skip)(
  'Snapshots and the root password of a running VPS (libvirt, real cloud image, QEMU guest agent)',
  () => {
    const g = new GuestSuite('snap');
    let snapshot: { id: string; slug: string };
    let cold: string | undefined;
    const logLines: string[] = [];
    const passwords: string[] = [];

    beforeAll(() => {
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString());
          done();
        },
      });
      return g.start({ ...compute, LOG_LEVEL: 'trace' }, { logger: pino({ level: 'trace' }, sink) });
    }, BOOT_MS);

    afterAll(async () => {
      await g.removeVps();
      if (snapshot) {
        await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer);
        await virsh('vol-delete', '--pool', POOL, `img-${snapshot.id}`).catch(() => undefined);
      }
      if (cold) await virsh('vol-delete', '--pool', POOL, `img-${cold}`).catch(() => undefined);
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

    it(
      'snapshots the running VPS live: the image is a standalone volume of the pool, its filesystems frozen by the guest agent',
      async () => {
        await g.provision();
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

    it(
      'rebuilds from the snapshot: the file written before it is there, the one written after is not',
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
        const stop = await request(g.t.http)
          .post(`/api/services/${g.vps.id}/instance/stop`)
          .set('Authorization', g.owner.bearer)
          .expect(202);
        expect(await g.settle(stop.body.id)).toMatchObject({ status: 'succeeded' });
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

    it('answers 409 invalid_state for a stopped VPS', async () => {
      expect((await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer)).body.instance.powerState).toBe('stopped');
      expect((await reset().expect(409)).body.code).toBe('invalid_state');
    });

    it('the passwords are in no log line and no activity entry', async () => {
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

import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { agentPing, BOOT_MS, untilAgentAnswers } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass } from '../support/libvirt';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * Root password reset on the local qemu:///system, with the Debian test image
 * (qemu-guest-agent installed): the password the API answers is the one root's /etc/shadow entry
 * now holds, checked inside the guest with crypt(3) over SSH (the password goes to ssh on stdin,
 * never in a process's arguments). With the agent stopped the answer is 409 guest_agent_unavailable,
 * with the VPS stopped 409 invalid_state. One guest. In CI, the PGlite pass (guestSuiteInThisPass).
 */
const enabled = guestSuiteInThisPass();

const compute = guestCompute('26000-26999');

/** Prints `match` when the password on stdin is root's in /etc/shadow, `differ` otherwise. */
const CHECK_ROOT_PASSWORD =
  'perl -e \'chomp(my $pw = <STDIN>); open(my $f, "<", "/etc/shadow") or die "shadow: $!"; ' +
  'while (<$f>) { my @x = split /:/; print(crypt($pw, $x[1]) eq $x[1] ? "match" : "differ") if $x[0] eq "root" }\'';

(enabled ? describe : describe.skip)('Root password reset (libvirt, real cloud image, QEMU guest agent)', () => {
  const g = new GuestSuite('pw');
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

  afterAll(() => g.stop());

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
    "sets the password in the guest: root's /etc/shadow entry holds it, a second reset replaces it",
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

  it(
    'answers 409 guest_agent_unavailable once the guest agent is stopped, and the password stays as it was',
    async () => {
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
    'answers 409 invalid_state for a stopped VPS',
    async () => {
      const stop = await request(g.t.http).post(`/api/services/${g.vps.id}/instance/stop`).set('Authorization', g.owner.bearer).expect(202);
      const done = await waitFor(
        async () => (await g.t.get(`/api/services/${g.vps.id}/instance/actions/${stop.body.id}`, g.owner.bearer).expect(200)).body,
        (action) => action.status !== 'running',
        BOOT_MS,
      );
      expect(done.status).toBe('succeeded');
      expect((await reset().expect(409)).body.code).toBe('invalid_state');
    },
    BOOT_MS,
  );

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
});

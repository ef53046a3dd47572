import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { BOOT_MS, hostKeyAt, untilSshUp } from '../support/guest';
import { rescueTestImageFile, testImageFile } from '../support/test-images';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * Rescue mode on the local qemu:///system with the Debian test image: a customer
 * breaks sshd (no key works any more), boots the rescue system, logs in to it with the key, mounts
 * the VPS's disk (/dev/vdb1), repairs sshd_config, unrescues, and logs in to the repaired VPS, where
 * a file written before is still there. The rescue system is the test image made by the operator's
 * scripts/make-rescue-image.sh (through build-rescue-test-image.sh): the same filesystem UUID and
 * label as the VPS's disk, found by its device (/dev/vda1).
 * One guest, booted three times. In CI, the PGlite pass (guestSuiteInThisPass).
 */
const enabled = guestSuiteInThisPass();

const POOL = 'default';
const compute = guestCompute('27000-27999');

/** Prints `match` when the password on stdin is root's in /etc/shadow, `differ` otherwise. */
const CHECK_ROOT_PASSWORD =
  'perl -e \'chomp(my $pw = <STDIN>); open(my $f, "<", "/etc/shadow") or die "shadow: $!"; ' +
  'while (<$f>) { my @x = split /:/; print(crypt($pw, $x[1]) eq $x[1] ? "match" : "differ") if $x[0] eq "root" }\'';

/** The <disk> element of the domain's XML with this target device. */
const diskOf = (xml: string, dev: string): string | undefined =>
  [...xml.matchAll(/<disk [\s\S]*?<\/disk>/g)].map((m) => m[0]).find((disk) => disk.includes(`<target dev='${dev}'`));

(enabled ? describe : describe.skip)('Rescue mode (libvirt, real cloud image)', () => {
  const g = new GuestSuite('r');
  const volumes = (id: string) => [`svc-${id}-root.qcow2`, `svc-${id}-seed.iso`, `svc-${id}-rescue.qcow2`, `svc-${id}-rescue-seed.iso`];

  beforeAll(async () => {
    await g.start(compute);
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

  afterAll(() => g.stop(volumes));

  const ssh = (command: string, input = '') => g.ssh(command, input);

  /** The command's answer once ssh gets in (the guest booting, cloud-init restarting sshd once). */
  const sshWhenUp = (command: string, input = '') =>
    untilSshUp(
      () => ssh(command, input),
      (res) => `ssh never got in: ${res.code} ${res.stderr}`,
      (res) => res.code !== 255,
    );

  const post = (path: string) => request(g.t.http).post(`/api/services/${g.vps.id}/instance/${path}`).set('Authorization', g.owner.bearer);
  const finished = (actionId: string) =>
    waitFor(
      async () => (await g.t.get(`/api/services/${g.vps.id}/instance/actions/${actionId}`, g.owner.bearer).expect(200)).body,
      (action) => action.status !== 'running',
      BOOT_MS,
    );
  const instance = async () => (await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer).expect(200)).body.instance;

  it(
    'repairs a VPS whose sshd refuses every key: rescue, fix the disk at /dev/vdb1, unrescue; the data is still there',
    async () => {
      await g.provision();
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
});

import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { ownLibvirtdCompute } from '../support/hosts';
import { buildTinyGuest, libvirtTestsEnabled, TinyGuest } from '../support/libvirt';
import { emptyOwnLibvirtd, virshOn } from '../support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../support/own-libvirtd';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

/** The test's libvirtd runs as nobody, outside group kvm: KVM is refused to it unless /dev/kvm is open to everyone. */
function kvmRefusedToOthers(): boolean {
  try {
    return (statSync('/dev/kvm').mode & 0o006) !== 0o006;
  } catch {
    return true;
  }
}

const enabled = libvirtTestsEnabled() && kvmRefusedToOthers();
const SLOW = 120_000;

/**
 * What libvirt itself said reaches the operator, never the customer (issue 58, point 5): a domain
 * template with type='kvm' on a libvirtd that may not use KVM (the test's own, as nobody), and a
 * start QEMU refuses (an adopted domain whose kernel file is not there). No guest boots.
 */
(enabled ? describe : describe.skip)("libvirt: the operator sees the hypervisor's reason, the customer a plain message", () => {
  let daemon: OwnLibvirtd;
  let tiny: TinyGuest;
  let t: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    tiny = buildTinyGuest();
    daemon = await startOwnLibvirtd();
    const kvm = join(dirname(tiny.template), 'kvm.xml');
    writeFileSync(kvm, readFileSync(tiny.template, 'utf8').replace("<domain type='qemu'>", "<domain type='kvm'>"));
    t = await startTestApp(ownLibvirtdCompute(daemon.uri(), kvm));
    owner = await createAccount(t);
  }, SLOW);

  afterAll(async () => {
    if (daemon) await emptyOwnLibvirtd(daemon);
    await t?.close();
    await daemon?.stop();
    tiny?.remove();
  }, SLOW);

  /** Everything the customer's API shows about a VPS: none of it may carry the hypervisor's words. */
  async function customerSees(serviceId: string): Promise<string> {
    const get = async (path: string) => JSON.stringify((await t.get(path, owner.bearer).expect(200)).body);
    const seen = await Promise.all([
      get(`/api/services/${serviceId}`),
      get(`/api/services/${serviceId}/instance/actions`),
      get('/api/notifications?pageSize=100'),
      get('/api/events?pageSize=100'),
    ]);
    return seen.join('\n');
  }

  it(
    "provisioning refused by libvirt: service:provision prints libvirt's reason; the customer's notification and service do not",
    async () => {
      const run = await runCliIn(t.app, ['service:provision', '--email', owner.email, '--type', 'vps', '--product', 'vps-xs']);
      expect(run.code).toBe(65);
      expect(run.stderr).toContain('hypervisor_error: The hypervisor refused the request.');
      // libvirt's own words, as virsh printed them (Debian 12's: "Emulator '/usr/bin/qemu-system-x86_64' does not support virt type 'kvm'").
      expect(run.stderr).toMatch(/hypervisor said: virsh define failed: error: .*kvm/i);
      const id = /could not be made \(([0-9a-f-]{36})/.exec(run.stderr)?.[1];
      expect(id).toBeDefined();

      const seen = await customerSees(id!);
      expect(seen).toContain('The hypervisor refused the request.');
      for (const words of ['virsh', 'virt type', '/usr/', daemon.dir, dirname(tiny.template)]) expect(seen).not.toContain(words);
    },
    SLOW,
  );

  it(
    "a start QEMU refuses: the action's error is plain for the customer, service:actions shows the operator QEMU's reason",
    async () => {
      // A machine of the operator's, adopted: its kernel file is missing, so QEMU refuses to start it.
      const domain = `adopt-${randomUUID().slice(0, 8)}`;
      const missing = `/nonexistent-${randomUUID().slice(0, 8)}/vmlinuz`;
      const xml = join(dirname(tiny.template), `${domain}.xml`);
      writeFileSync(
        xml,
        readFileSync(tiny.template, 'utf8')
          .replace('{{name}}', domain)
          .replace(/<kernel>[^<]*<\/kernel>/, `<kernel>${missing}</kernel>`)
          .replace(/\{\{memoryMb\}\}/, '64')
          .replace(/\{\{vcpus\}\}/, '1')
          .replace(/<serial[^>]*>.*?<\/serial>/s, '')
          .replace(/<graphics[^>]*\/>/, ''),
      );
      await virshOn(daemon, 'define', xml);
      const adopt = ['service:provision', '--email', owner.email, '--type', 'vps', '--product', 'vps-xs', '--provider-ref', domain];
      const adopted = await runCliIn(t.app, adopt);
      expect(adopted.stderr).toBe('');
      const id = adopted.lines[0].id as string;

      const start = await request(t.http).post(`/api/services/${id}/instance/start`).set('Authorization', owner.bearer).expect(202);
      const failed = await waitForOrFail(
        async () => (await t.get(`/api/services/${id}/instance/actions/${start.body.id}`, owner.bearer).expect(200)).body,
        (action) => action.status !== 'running',
        60_000,
        (action) => `the start is still ${action.status}`,
      );
      expect(failed).toMatchObject({
        status: 'failed',
        error: { code: 'hypervisor_error', message: 'The hypervisor refused the request.' },
      });
      expect(failed).not.toHaveProperty('error.detail');
      const seen = await customerSees(id);
      for (const words of ['virsh', missing]) expect(seen).not.toContain(words);

      const operator = await runCliIn(t.app, ['service:actions', '--id', id]);
      expect(operator.code).toBe(0);
      expect(operator.lines[0]).toMatchObject({
        id: start.body.id,
        type: 'start',
        status: 'failed',
        step: null,
        error: { code: 'hypervisor_error', message: 'The hypervisor refused the request.', detail: expect.stringContaining(missing) },
      });
    },
    SLOW,
  );
});

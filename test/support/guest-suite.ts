import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, TestAccount } from '../factories/accounts';
import { uploadSshKey } from '../factories/images';
import { addTestImage, BOOT_MS, makeKeyPair, removeGuest, sshAsRoot, SshResult, untilSshUp } from './guest';
import { runCliIn } from './run-cli-in-app';
import type { AppLogging } from '../../apps/api/src/http/configure-app';
import { startTestApp, TestApp } from './test-app';
import { timeline } from './timeline';
import { waitFor } from './wait-for';

export interface Guest {
  id: string;
  instance: { ssh: { host: string; port: number } };
}

/**
 * What a real-guest suite stands on: the app on a libvirt environment, an account whose SSH key
 * gets into its VPSes, the test image added under a slug of the suite's own, the VPS it provisions;
 * and, at the end, all of it removed again, the guest's volumes too.
 */
export class GuestSuite {
  t!: TestApp;
  owner!: TestAccount;
  readonly slugs: string[] = [];
  /** A prefix ssh runs under: `ip netns exec <ns>` for a guest on an isolated segment (isolated-segment.ts). */
  sshVia: string[] = [];
  private dir = '';
  private provisioned?: Guest;
  private readonly others: Guest[] = [];

  constructor(private readonly name: string) {}

  get key(): string {
    return join(this.dir, 'key');
  }

  /** The VPS the suite provisioned. */
  get vps(): Guest {
    if (!this.provisioned) throw new Error('No VPS provisioned yet');
    return this.provisioned;
  }

  get imageSlug(): string {
    return this.slugs[0];
  }

  async start(env: Record<string, string | undefined>, logging?: AppLogging): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), `${this.name}-keys-`));
    makeKeyPair(this.key, `${this.name}-test`);
    this.t = await startTestApp(env, logging);
    this.owner = await createAccount(this.t);
    await uploadSshKey(this.t, this.owner.bearer, readFileSync(`${this.key}.pub`, 'utf8'));
    const slug = `debian-12-${this.name}-${randomUUID().slice(0, 8)}`;
    const added = await addTestImage(this.t.app, slug);
    expect(added.lines[0]).toMatchObject({ slug, status: 'available' });
    this.slugs.push(slug);
  }

  /** A VPS of the operator's service:provision for the suite's account, from `image`. */
  async provision(image = this.imageSlug): Promise<Guest> {
    [this.provisioned] = await this.provisionVps(image);
    return this.vps;
  }

  /** One more VPS of the account beside the suite's own, removed with it. */
  async provisionAnother(image = this.imageSlug): Promise<Guest> {
    const [another] = await this.provisionVps(image);
    this.others.push(another);
    return another;
  }

  /** `command` as root in another VPS of the suite, tried until its SSH answers. */
  sshInto(guest: Guest, command: string): Promise<SshResult> {
    return untilSshUp(() => sshAsRoot(guest.instance.ssh, this.key, command, undefined, this.sshVia));
  }

  private async provisionVps(image: string): Promise<Guest[]> {
    const res = await runCliIn(this.t.app, [
      'service:provision',
      '--email',
      this.owner.email,
      '--type',
      'vps',
      '--product',
      'vps-xs',
      '--image',
      image,
    ]);
    expect(res.stderr).toBe('');
    return res.lines as Guest[];
  }

  /** `command` as root in the VPS; `input` goes to its stdin. */
  ssh(command: string, input?: string): Promise<SshResult> {
    return sshAsRoot(this.vps.instance.ssh, this.key, command, input, this.sshVia);
  }

  /** Tried at most once a second until it runs (the guest boots; cloud-init may restart sshd once). */
  sshWhenUp(command: string): Promise<SshResult> {
    return untilSshUp(() => this.ssh(command));
  }

  /** The action once it is no longer running. */
  settle(actionId: string) {
    const since = Date.now();
    let said = '';
    return waitFor(
      async () => {
        const action = (await this.t.get(`/api/services/${this.vps.id}/instance/actions/${actionId}`, this.owner.bearer).expect(200)).body;
        const now = `${action.type} ${action.status}${action.step ? `: ${action.step}` : ''}`;
        if (now !== said) timeline(now, since);
        said = now;
        return action;
      },
      (action) => action.status !== 'running',
      BOOT_MS,
    );
  }

  /** Terminates the VPS and removes what is left of it on the hypervisor (`volumes`, its disk and seed by default). */
  async removeVps(volumes?: (id: string) => string[]): Promise<void> {
    if (this.provisioned) await removeGuest(this.t.app, this.provisioned.id, volumes?.(this.provisioned.id));
    this.provisioned = undefined;
  }

  async stop(volumes?: (id: string) => string[]): Promise<void> {
    await this.removeVps(volumes);
    for (const other of this.others.splice(0)) await removeGuest(this.t.app, other.id, volumes?.(other.id)).catch(() => undefined);
    for (const slug of this.slugs) await runCliIn(this.t.app, ['image:remove', '--slug', slug]).catch(() => undefined);
    await this.t?.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

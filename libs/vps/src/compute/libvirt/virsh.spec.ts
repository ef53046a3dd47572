import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { ComputeProviderError } from '../compute-provider';
import { Virsh, virshError, VOLUME_EXISTS_CODE } from './virsh';

const SECRET = 'q7Hm2xKpW4tRz9LbN3cV';

describe('Virsh with a secret argument', () => {
  let dir: string;
  let logged: string[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'virsh-'));
    logged = [];
    const record = (message: unknown) => {
      logged.push(String(message));
    };
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(record);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(record);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(record);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(record);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A stand-in for virsh: prints `stderr` and exits 1. */
  function fakeVirsh(stderr: string): Virsh {
    const file = join(dir, 'virsh');
    writeFileSync(file, `#!/bin/sh\nprintf '%s' '${stderr.replace(/'/g, "'\\''")}' >&2\nexit 1\n`);
    chmodSync(file, 0o755);
    return new Virsh(90, file);
  }

  const setPassword = (virsh: Virsh) =>
    virsh.run('qemu:///system', ['set-user-password', 'svc-x', 'root', SECRET], { timeoutMs: 5000, secrets: [SECRET] });

  it('logs neither the command line (silent failure) nor the secret virsh repeats, and keeps it out of the error', async () => {
    for (const stderr of ['', `error: could not set ${SECRET}`]) {
      const err = await setPassword(fakeVirsh(stderr)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ComputeProviderError);
      expect((err as Error).message).not.toContain(SECRET);
    }
    expect(logged).toHaveLength(2);
    expect(logged[0]).toBe('virsh set-user-password failed: exit status 1');
    expect(logged[1]).toBe('virsh set-user-password failed: error: could not set ***');
  });

  it('logs a domain that is not there at debug where the caller expects it (an existence check), as a warning elsewhere', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn');
    const virsh = fakeVirsh('error: failed to get domain svc-x');
    const look = (expected?: string[]) =>
      virsh.run('qemu:///system', ['dominfo', 'svc-x'], { timeoutMs: 5000, expected }).catch((e: unknown) => e as ComputeProviderError);
    expect(await look(['not_found'])).toMatchObject({ code: 'not_found' });
    expect(warned).not.toHaveBeenCalled();
    expect(await look()).toMatchObject({ code: 'not_found' });
    expect(warned).toHaveBeenCalledWith('virsh dominfo failed: error: failed to get domain svc-x');
  });

  it("gives customers a plain refusal and operators libvirt's own reason, on one line, without the secret", async () => {
    const kvm = [
      "error: Failed to start domain 'svc-x'",
      'error: internal error: process exited while connecting to monitor: Could not access KVM kernel module: Permission denied',
      `error: failed to initialize kvm: Permission denied (${SECRET})`,
    ].join('\n');
    const err = (await fakeVirsh(kvm)
      .run('qemu:///system', ['start', 'svc-x'], { timeoutMs: 5000, secrets: [SECRET] })
      .catch((e: unknown) => e)) as ComputeProviderError;
    expect(err).toBeInstanceOf(ComputeProviderError);
    expect(err).toMatchObject({ code: 'hypervisor_error', message: 'The hypervisor refused the request.', retryable: false });
    expect(err.operatorDetail).toBe(
      "virsh start failed: error: Failed to start domain 'svc-x' error: internal error: process exited while connecting to monitor: " +
        'Could not access KVM kernel module: Permission denied error: failed to initialize kvm: Permission denied (***)',
    );
    expect(err.message).not.toMatch(/kvm/i);
  });

  it('keeps the mapped code, message and retryability when it adds the words (a missing volume, an unreachable daemon)', async () => {
    const missing = (await fakeVirsh(
      "error: failed to get vol 'img-9be0bfb0-df71-4d7b-8894-ae1ded8da346'\nerror: Storage volume not found: no storage vol with matching path '/var/lib/libvirt/images/img-9be0bfb0-df71-4d7b-8894-ae1ded8da346'",
    )
      .run('qemu:///system', ['vol-info', 'x'], { timeoutMs: 5000 })
      .catch((e: unknown) => e)) as ComputeProviderError;
    expect(missing).toMatchObject({ code: 'not_found', retryable: false });
    expect(missing.message).not.toContain('/var/lib');
    expect(missing.operatorDetail).toContain('/var/lib/libvirt/images/img-9be0bfb0');
    const away = (await fakeVirsh(
      'error: failed to connect to the hypervisor\nerror: Failed to connect socket to /run/libvirt/libvirt-sock',
    )
      .run('qemu:///system', ['list'], { timeoutMs: 5000 })
      .catch((e: unknown) => e)) as ComputeProviderError;
    expect(away).toMatchObject({ code: 'hypervisor_unavailable', message: 'The hypervisor cannot be reached.', retryable: true });
    expect(away.operatorDetail).toContain('/run/libvirt/libvirt-sock');
  });

  it('reads a guest agent that does not answer, or a machine that is not running, as such', async () => {
    const agent = await setPassword(fakeVirsh('error: Guest agent is not responding: QEMU guest agent is not connected')).catch(
      (e: unknown) => e as ComputeProviderError,
    );
    expect(agent).toMatchObject({ code: 'guest_agent_unavailable', retryable: false });
    const unconfigured = virshError(
      Object.assign(new Error('x'), { code: '1' }),
      'error: argument unsupported: QEMU guest agent is not configured',
      1000,
    );
    expect(unconfigured.code).toBe('guest_agent_unavailable');
    const stopped = virshError(
      Object.assign(new Error('x'), { code: '1' }),
      'error: Requested operation is not valid: domain is not running',
      1000,
    );
    expect(stopped.code).toBe('not_running');
  });

  it("reads libvirt's refusal of a volume name the pool already has as volume_exists", () => {
    const exists = virshError(
      Object.assign(new Error('x'), { code: '1' }),
      "error: Failed to create vol from /tmp/v.xml\nerror: internal error: storage volume name 'img-1.qcow2' already in use.",
      1000,
    );
    expect(exists).toMatchObject({ code: VOLUME_EXISTS_CODE, retryable: false });
  });

  it.each([
    // What the soak's hour saw from a rebuild's vol-create-as right after the root disk's removal.
    "error: Failed to create vol svc-1-root.qcow2\nerror: storage volume 'svc-1-root.qcow2' exists already",
    // A file in the pool's directory that the pool has not listed (libvirt 9.0).
    "error: Failed to create vol seed\nerror: Requested operation is not valid: volume target path '/var/lib/libvirt/images/seed' already exists",
  ])('reads %j as volume_exists, not a hypervisor_error', (stderr) => {
    expect(virshError(Object.assign(new Error('x'), { code: '1' }), stderr, 1000)).toMatchObject({ code: VOLUME_EXISTS_CODE });
  });

  it('reads a network filter libvirt does not have as not_found, naming the filter, not a machine', () => {
    const missing = virshError(
      Object.assign(new Error('x'), { code: '1' }),
      "error: failed to get nwfilter 'hosting-vps-1'\nerror: Network filter not found: no nwfilter with matching name 'hosting-vps-1'",
      1000,
    );
    expect(missing).toMatchObject({ code: 'not_found', message: 'The network filter does not exist on the hypervisor.' });
  });
});

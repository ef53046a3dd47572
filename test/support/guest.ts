import { execFile, execFileSync } from 'node:child_process';
import type { INestApplicationContext } from '@nestjs/common';
import { removeDomain, virsh } from './libvirt';
import type { CliResult } from './run-cli';
import { runCliIn } from './run-cli-in-app';
import { testImageFile } from './test-images';
import { timeline } from './timeline';
import { waitForOrFail } from './wait-for';

/** A boot under TCG on a busy two-core machine: about a minute, at times far more. */
export const BOOT_MS = 300_000;

/** An ed25519 key pair without a passphrase: `file` and `file.pub`. */
export function makeKeyPair(file: string, comment: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
}

/** The test image added as `slug` by the operator's image:add. */
export function addTestImage(app: INestApplicationContext, slug: string): Promise<CliResult> {
  const file = testImageFile();
  return runCliIn(app, ['image:add', '--slug', slug, '--name', 'Debian 12 (test image)', '--file', file]);
}

/** Terminates the VPS, then removes its domain and `volumes` from the pool, whatever is left of them. */
export async function removeGuest(app: INestApplicationContext, id: string, volumes = [`svc-${id}-root.qcow2`, `svc-${id}-seed.iso`]) {
  await runCliIn(app, ['service:set-status', '--id', id, '--status', 'terminated']).catch(() => undefined);
  await removeDomain(`svc-${id}`);
  for (const volume of volumes) await virsh('vol-delete', '--pool', 'default', volume).catch(() => undefined);
}

/** What qemu-guest-agent in `domain` answers to a ping, or libvirt's error. */
export function agentPing(domain: string): Promise<string> {
  return virsh('qemu-agent-command', domain, '{"execute":"guest-ping"}').catch((err: Error) => err.message);
}

/** Once qemu-guest-agent in `domain` answers (it starts with the guest, at times after sshd). */
export function untilAgentAnswers(domain: string): Promise<string> {
  return waitForOrFail(
    () => agentPing(domain),
    (answer) => answer.includes('"return"'),
    BOOT_MS,
    (answer) => `qemu-guest-agent never answered: ${answer}`,
  );
}

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `command` as root at `to` with `key`: no prompt, no host key kept, 10 s to connect, 30 s in all.
 * `input`, if given, is its stdin; `via` a command prefix ssh runs under (`ip netns exec <ns>`).
 */
export function sshAsRoot(
  to: { host: string; port: number },
  key: string,
  command: string,
  input?: string,
  via: string[] = [],
): Promise<SshResult> {
  const args = ['-i', key, '-p', String(to.port), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null'];
  args.push('-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-o', 'LogLevel=ERROR', `root@${to.host}`, command);
  const [file, ...before] = [...via, 'ssh'];
  return new Promise((resolve) => {
    const child = execFile(file, [...before, ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout: stdout.trim(), stderr: stderr.trim() }),
    );
    if (input === undefined) return;
    // ssh may end before reading (a guest still booting): its stdin then closes under the write.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(input);
  });
}

const ran = (res: SshResult) => res.code === 0;

/** One try, then the rest of a second unless `ok`: a refused connection returns at once, and the guest needs the CPU. */
export async function pacedTry(attempt: () => Promise<SshResult>, ok = ran): Promise<SshResult> {
  const started = Date.now();
  const res = await attempt();
  if (!ok(res)) await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - started))));
  return res;
}

/** `attempt` at most once a second until `ok` (the guest boots; cloud-init may restart sshd once); after BOOT_MS it fails. */
export function untilSshUp(
  attempt: () => Promise<SshResult>,
  failure = (res: SshResult) => `ssh never worked: ${res.code} ${res.stderr}`,
  ok = ran,
): Promise<SshResult> {
  const since = Date.now();
  return waitForOrFail(() => pacedTry(attempt, ok), ok, BOOT_MS, failure).then((res) => (timeline('ssh answered', since), res));
}

/** The Ed25519 host key sshd answers with at `to` (`ssh-keyscan`), as `ssh-ed25519 AAAA...`; '' when none answered. */
export function hostKeyAt(to: { host: string; port: number }, via: string[] = []): Promise<string> {
  const [file, ...before] = [...via, 'ssh-keyscan'];
  return new Promise((resolve) => {
    execFile(file, [...before, '-T', '10', '-t', 'ed25519', '-p', String(to.port), to.host], { timeout: 30_000 }, (_err, stdout) => {
      const line = String(stdout)
        .split('\n')
        .find((l) => l && !l.startsWith('#'));
      resolve(line ? line.split(' ').slice(1, 3).join(' ') : '');
    });
  });
}

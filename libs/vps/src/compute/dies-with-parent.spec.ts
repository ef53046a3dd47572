import { execFile, spawn } from 'node:child_process';
import { diesWithParent, programMissing } from './dies-with-parent';
import { Virsh } from './libvirt/virsh';

const PARENT = `
const { spawn } = require('node:child_process');
const [binary, args] = JSON.parse(process.argv[1]);
const child = spawn(binary, args, { stdio: 'ignore' });
console.log(child.pid);
setInterval(() => {}, 1000);
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a Node process that runs `command`, kills that process with SIGKILL, and gives the command's pid. */
async function orphanOf(command: [string, string[]]): Promise<number> {
  const parent = spawn(process.execPath, ['-e', PARENT, JSON.stringify(command)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
  const gone = new Promise((resolve) => parent.once('exit', resolve));
  parent.kill('SIGKILL');
  await gone;
  return pid;
}

async function waitUntilGone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('diesWithParent', () => {
  it('a command started through it ends when the process that started it is killed', async () => {
    const pid = await orphanOf(diesWithParent('sleep', ['300']));
    await waitUntilGone(pid);
    expect(alive(pid)).toBe(false);
  });

  it('without it the command outlives a killed parent (what a killed replica used to leave behind)', async () => {
    const pid = await orphanOf(['sleep', ['300']]);
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('a missing program is still told apart from a failing one', async () => {
    const failure = await new Promise<[NodeJS.ErrnoException, string]>((resolve) =>
      execFile(...diesWithParent('no-such-program-for-this-test', []), (err, _out, stderr) =>
        resolve([err as NodeJS.ErrnoException, String(stderr)]),
      ),
    );
    expect(programMissing(...failure)).toBe(true);
    const refused = await new Promise<[NodeJS.ErrnoException, string]>((resolve) =>
      execFile(...diesWithParent('false', []), (err, _out, stderr) => resolve([err as NodeJS.ErrnoException, String(stderr)])),
    );
    expect(programMissing(...refused)).toBe(false);
  });

  it('virsh missing from the API host reads as such', async () => {
    await expect(new Virsh(90, 'no-such-virsh-for-this-test').run('test:///default', ['list'], { timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'hypervisor_unavailable',
      message: 'The libvirt client (virsh) is not installed on the API host.',
    });
  });
});

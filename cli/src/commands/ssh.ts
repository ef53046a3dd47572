import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { Command } from 'commander';
import { unwrap } from '@hosting-account/sdk';
import { configPath } from '../config';
import { ExitWith, UsageError } from '../errors';
import { examples, session } from '../command-context';
import { resolveServiceId } from '../service-ref';

/**
 * `hostctl ssh <vps> [-- command]`: ssh to the VPS as root at the address and port the service
 * shows, checking the host key against the one the API made for it (instance.ssh.hostKeys), so the
 * first connection is verified too and a rebuild does not trip "host key verification failed".
 */
export function sshCommand(): Command {
  return new Command('ssh')
    .description('Log in to a VPS with ssh, its host key checked against the one the API shows')
    .argument('<vps>', 'service id of the VPS, or its name')
    .argument('[command...]', 'a command to run instead of a login shell (after --)')
    .option('-i, --identity <file>', 'the private key ssh offers (ssh -i)')
    .option('-l, --login <user>', 'the user to log in as', 'root')
    .addHelpText(
      'after',
      "\nThe VPS's host keys are written to known_hosts beside hostctl's config and ssh checks them\n" +
        "(StrictHostKeyChecking=yes). In rescue mode the rescue system's own key is the one checked.\n" +
        examples('hostctl ssh web-01', 'hostctl ssh web-01 -- uptime', 'hostctl ssh web-01 -i ~/.ssh/deploy -- systemctl status nginx'),
    )
    .action(async (reference: string, remote: string[], options: { identity?: string; login: string }, command: Command) => {
      const { api } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      const service = await unwrap(api.GET('/api/services/{id}', { params: { path: { id } } }));
      const ssh = service.instance?.ssh;
      if (!ssh)
        throw new UsageError(
          `${service.name} has no SSH endpoint (it is ${service.status}${service.instance ? ', with no address yet' : ''}).`,
        );
      const args = ['-p', String(ssh.port), '-l', options.login];
      if (options.identity) args.push('-i', options.identity);
      if (ssh.hostKeys.length) {
        const file = knownHostsFile();
        remember(
          file,
          ssh.host,
          ssh.port,
          ssh.hostKeys.map((key) => key.knownHosts),
        );
        args.push('-o', `UserKnownHostsFile=${file}`, '-o', 'StrictHostKeyChecking=yes');
      } else {
        process.stderr.write(
          `hostctl: the API shows no host key for ${service.name} (made before it kept them); ssh asks you to check it.\n`,
        );
      }
      args.push(ssh.host, ...remote);
      throw new ExitWith(await run('ssh', args));
    });
}

/** `known_hosts` beside hostctl's config.json; hostctl owns every line in it. */
function knownHostsFile(): string {
  return join(dirname(configPath()), 'known_hosts');
}

/** This host and port's lines replaced by the ones the API shows (an address reused by another VPS gets that VPS's key). */
function remember(file: string, host: string, port: number, lines: string[]): void {
  const name = port === 22 ? host : `[${host}]:${port}`;
  let kept: string[] = [];
  try {
    kept = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line && line.split(' ')[0] !== name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, [...kept, ...lines].map((line) => `${line}\n`).join(''), { mode: 0o600 });
}

function run(file: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'inherit' });
    child.on('error', (err) => reject(new UsageError(`could not run ${file}: ${err.message}`)));
    // Killed by a signal: the shell's convention, 128 + its number.
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}

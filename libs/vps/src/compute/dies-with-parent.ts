import { existsSync } from 'node:fs';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

/**
 * The command line that runs `binary` so it is killed when this process dies (util-linux's setpriv
 * sets the parent-death signal, then execs it under the same pid). A replica killed mid-action
 * otherwise leaves its virsh, rbd or qemu-img finishing a step after another replica has taken the
 * action over: a late delete could remove what the new runner had just made.
 */
export function diesWithParent(binary: string, args: readonly string[]): [string, string[]] {
  return SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', '--', binary, ...args]] : [binary, [...args]];
}

/** The shell words that do the same inside a `bash -c` script (its own children are not covered by bash's). */
export function diesWithParentPrefix(): string {
  return SETPRIV ? `${SETPRIV} --pdeathsig KILL -- ` : '';
}

/** A missing program, as setpriv reports it (exit 127) or as spawn does (ENOENT). */
export function programMissing(err: NodeJS.ErrnoException, stderr: string): boolean {
  return err.code === 'ENOENT' || ((err.code as unknown) === 127 && /failed to execute .*No such file or directory/.test(stderr));
}

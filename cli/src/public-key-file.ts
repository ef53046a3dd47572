import { existsSync, readFileSync } from 'node:fs';
import { UsageError } from './errors';

const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|^PuTTY-User-Key-File-/m;

export interface PublicKeyFile {
  path: string;
  publicKey: string;
  /** Set when the public half was read in place of the file given. */
  note?: string;
}

/**
 * The public key to send for `--public-key-file`. A private key is never sent: given one (say
 * ~/.ssh/id_ed25519), its public half next to it (id_ed25519.pub) is read instead, or hostctl stops.
 */
export function readPublicKeyFile(path: string): PublicKeyFile {
  const given = read(path);
  if (given.text !== undefined && !PRIVATE_KEY.test(given.text)) return { path, publicKey: given.text.trim() };
  const sibling = `${path}.pub`;
  if (!path.endsWith('.pub') && existsSync(sibling)) {
    const { text, error } = read(sibling);
    if (text === undefined) throw new UsageError(`cannot read the public key file ${sibling}: ${error} (use --public-key-file)`);
    if (PRIVATE_KEY.test(text)) throw privateKeyError(sibling);
    const note =
      given.text === undefined ? `${path} not found: using ${sibling}` : `${path} is a private key: using its public key ${sibling}`;
    return { path: sibling, publicKey: text.trim(), note };
  }
  if (given.text === undefined) throw new UsageError(`cannot read the public key file ${path}: ${given.error} (use --public-key-file)`);
  throw privateKeyError(path);
}

function privateKeyError(path: string): UsageError {
  return new UsageError(
    `${path} is a PRIVATE key: it was not sent, and must never leave your machine. Give its public key ` +
      `(the .pub file; "ssh-keygen -y -f ${path}" prints it)`,
  );
}

function read(path: string): { text?: string; error?: string } {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

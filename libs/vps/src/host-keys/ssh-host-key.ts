import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';

/** A host key pair as cloud-init's `ssh_keys` takes it: OpenSSH's private key file and the public key line. */
export interface SshHostKeyPair {
  type: 'ed25519';
  privateKey: string;
  publicKey: string;
}

const KEY_TYPE = 'ssh-ed25519';

/** A new Ed25519 host key, the private part in OpenSSH's own format (PROTOCOL.key), unencrypted, as sshd reads it. */
export function generateHostKey(comment = 'host'): SshHostKeyPair {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const secret = Buffer.from(jwk.d!, 'base64url');
  const pub = Buffer.from(jwk.x!, 'base64url');
  const publicBlob = Buffer.concat([sshString(KEY_TYPE), sshString(pub)]);
  const check = randomBytes(4);
  const section = Buffer.concat([
    check,
    check,
    sshString(KEY_TYPE),
    sshString(pub),
    sshString(Buffer.concat([secret, pub])),
    sshString(comment),
  ]);
  const padding = Buffer.from(Array.from({ length: (8 - (section.length % 8)) % 8 }, (_, i) => i + 1));
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(publicBlob),
    sshString(Buffer.concat([section, padding])),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g)!;
  return {
    type: 'ed25519',
    privateKey: ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----', ''].join('\n'),
    publicKey: `${KEY_TYPE} ${publicBlob.toString('base64')}`,
  };
}

/** Fingerprints kept by public key: every listed page shows each VPS's; emptied when full. */
const FINGERPRINTS_KEPT = 1000;
const fingerprints = new Map<string, string>();

/** `SHA256:<base64 without padding>`, as `ssh-keygen -l` and ssh's own prompt print it. */
export function fingerprintOf(publicKey: string): string {
  let fingerprint = fingerprints.get(publicKey);
  if (fingerprint === undefined) {
    const blob = Buffer.from(publicKey.split(' ')[1] ?? '', 'base64');
    fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
    if (fingerprints.size >= FINGERPRINTS_KEPT) fingerprints.clear();
    fingerprints.set(publicKey, fingerprint);
  }
  return fingerprint;
}

/** The known_hosts line for this key at host:port (`[host]:port` unless the port is 22). */
export function knownHostsLine(host: string, port: number, publicKey: string): string {
  return `${port === 22 ? host : `[${host}]:${port}`} ${publicKey}`;
}

function sshString(value: string | Buffer): Buffer {
  const data = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([uint32(data.length), data]);
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './errors';
import { readPublicKeyFile } from './public-key-file';

describe('readPublicKeyFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hostctl-keys-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const PUBLIC = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE3x me@laptop';
  const OPENSSH_PRIVATE = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n';
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads a public key file as it is', () => {
    expect(readPublicKeyFile(file('id_ed25519.pub', `${PUBLIC}\n`))).toEqual({ path: join(dir, 'id_ed25519.pub'), publicKey: PUBLIC });
  });

  it('given the private key, reads its .pub beside it and says so', () => {
    const privatePath = file('id_ed25519', OPENSSH_PRIVATE);
    file('id_ed25519.pub', PUBLIC);
    expect(readPublicKeyFile(privatePath)).toEqual({
      path: `${privatePath}.pub`,
      publicKey: PUBLIC,
      note: `${privatePath} is a private key: using its public key ${privatePath}.pub`,
    });
  });

  it('given a name with no file, reads the .pub of that name', () => {
    file('id_rsa.pub', PUBLIC);
    expect(readPublicKeyFile(join(dir, 'id_rsa')).publicKey).toBe(PUBLIC);
  });

  it.each([
    ['OpenSSH', OPENSSH_PRIVATE],
    ['PKCS#8', generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
    ['PEM RSA', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow==\n-----END RSA PRIVATE KEY-----\n'],
    ['encrypted PKCS#8', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIE==\n-----END ENCRYPTED PRIVATE KEY-----\n'],
    ['PuTTY', 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n'],
  ])('refuses a %s private key without a .pub beside it as a usage error', (_kind, text) => {
    const path = file('key', text);
    expect(() => readPublicKeyFile(path)).toThrow(UsageError);
    expect(() => readPublicKeyFile(path)).toThrow(`${path} is a PRIVATE key: it was not sent`);
  });

  it('refuses a .pub file that holds a private key', () => {
    const path = file('id_ed25519.pub', OPENSSH_PRIVATE);
    expect(() => readPublicKeyFile(path)).toThrow('is a PRIVATE key');
  });

  it('says which file it cannot read', () => {
    expect(() => readPublicKeyFile(join(dir, 'nope.pub'))).toThrow(`cannot read the public key file ${join(dir, 'nope.pub')}: ENOENT`);
  });
});

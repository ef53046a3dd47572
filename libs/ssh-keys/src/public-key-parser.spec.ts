import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePublicKey } from './public-key-parser';

const fixtures = join(__dirname, '../../../test/fixtures/ssh');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');
const fingerprints = Object.fromEntries(
  read('fingerprints.txt')
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([file, bits, fp]) => [file, { bits: Number(bits), fp }]),
);

describe('parsePublicKey', () => {
  it.each([
    ['ed25519.pub', 'ssh-ed25519'],
    ['ecdsa256.pub', 'ecdsa-sha2-nistp256'],
    ['ecdsa384.pub', 'ecdsa-sha2-nistp384'],
    ['ecdsa521.pub', 'ecdsa-sha2-nistp521'],
    ['rsa2048.pub', 'ssh-rsa'],
    ['rsa4096.pub', 'ssh-rsa'],
  ])('accepts %s with the fingerprint ssh-keygen gives', (file, type) => {
    const parsed = parsePublicKey(read(file));
    expect(parsed).toMatchObject({ type, bits: fingerprints[file].bits, fingerprint: fingerprints[file].fp });
    expect(parsed.publicKey).toBe(read(file).trim());
  });

  it('handles surrounding whitespace, tabs and comments with spaces as OpenSSH does', () => {
    const [type, data] = read('ed25519.pub').trim().split(' ');
    expect(parsePublicKey(`  \n${type}\t ${data}   my laptop key \n`).publicKey).toBe(`${type} ${data} my laptop key`);
    expect(parsePublicKey(`${type} ${data}`).publicKey).toBe(`${type} ${data}`);
  });

  it.each([
    ['1024-bit RSA', () => read('rsa1024.pub'), /at least 2048 bits/],
    ['DSA', () => read('dsa.pub'), /DSA keys are not accepted/],
    ['truncated base64', () => read('ed25519.pub').slice(0, 40), /truncated or corrupt/],
    ['a wrong type prefix', () => read('ed25519.pub').replace('ssh-ed25519', 'ssh-rsa'), /is a "ssh-ed25519" key, not "ssh-rsa"/],
    ['an unknown type', () => 'ssh-foo AAAA', /unsupported key type/],
    ['not base64', () => 'ssh-ed25519 !!!!', /not valid base64/],
    ['empty input', () => '   ', /expected OpenSSH format/],
    ['two lines', () => `${read('ed25519.pub').trim()}\n${read('rsa2048.pub').trim()}`, /single line/],
  ])('refuses %s with a reason', (_name, input, reason) => {
    expect(() => parsePublicKey(input())).toThrow(reason);
  });

  it('refuses a private key without repeating it', () => {
    const privateKey = read('ed25519.private-key-for-tests');
    let message = '';
    try {
      parsePublicKey(privateKey);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/private key/);
    expect(message).not.toContain(privateKey.split('\n')[1].slice(0, 20));
  });
});

import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprintOf, generateHostKey, knownHostsLine } from './ssh-host-key';

describe('SSH host keys', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'host-key-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a private key OpenSSH reads, whose public key and fingerprint are the ones shown', () => {
    const pair = generateHostKey('vps');
    const file = join(dir, 'ssh_host_ed25519_key');
    writeFileSync(file, pair.privateKey, { mode: 0o600 });
    expect(execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim()).toBe(`${pair.publicKey} vps`);
    const listed = execFileSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' }).split(' ');
    expect(listed[1]).toBe(fingerprintOf(pair.publicKey));
    expect(pair.publicKey).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]+=*$/);
  });

  it('gives each key its own fingerprint when asked again, past the number of fingerprints kept', () => {
    const keys = Array.from({ length: 1200 }, () => `ssh-ed25519 ${randomBytes(51).toString('base64')}`);
    const expected = (key: string) =>
      `SHA256:${createHash('sha256')
        .update(Buffer.from(key.split(' ')[1], 'base64'))
        .digest('base64')
        .replace(/=+$/, '')}`;
    for (const round of [1, 2]) for (const key of keys) expect([round, fingerprintOf(key)]).toEqual([round, expected(key)]);
  });

  it('makes a new key every time', () => {
    expect(generateHostKey().publicKey).not.toBe(generateHostKey().publicKey);
  });

  it('writes known_hosts lines ssh-keygen finds by host and port', () => {
    const pair = generateHostKey();
    const file = join(dir, 'known_hosts');
    writeFileSync(file, `${knownHostsLine('127.0.0.1', 2222, pair.publicKey)}\n${knownHostsLine('203.0.113.7', 22, pair.publicKey)}\n`);
    expect(execFileSync('ssh-keygen', ['-F', '[127.0.0.1]:2222', '-f', file], { encoding: 'utf8' })).toContain(pair.publicKey);
    expect(execFileSync('ssh-keygen', ['-F', '203.0.113.7', '-f', file], { encoding: 'utf8' })).toContain(pair.publicKey);
  });
});

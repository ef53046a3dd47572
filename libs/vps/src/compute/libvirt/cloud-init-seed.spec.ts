import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostnameOf } from '../../instances/guest-setup';
import { macAddressOf } from '../../instances/network/network-allocator';
import { generateHostKey } from '../../host-keys/ssh-host-key';
import { RESOLV_CONF_SCRIPT, seedFiles } from './cloud-init-seed';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPmfroQ5X/hvzDUHLkJAwYtggu3T3Ai3LLFsaRrwWH6Z demo@laptop';
const CLOUD_INIT = '/usr/bin/cloud-init';
/**
 * Key comments cloud-init's YAML reader refused (C1 controls, U+FFFE, U+FFFF) or read back changed
 * (NEL, line separators, lone surrogates) when the writer relied on JSON.stringify.
 */
const HOSTILE_COMMENTS = [
  ...['\x80', '\x85', '\x9b', '\x9f', '\ufffe', '\uffff', '\ufeff', '\u2028', '\u2029', '\ufdd0', '\u{1fffe}', '\u{10ffff}'],
  ...['\ud800', '\udfff', '\udc00\ud800', '\u{1f600}', '\x00\x09\x1b\x7f', '\r\n- evil', '" \\ \'#', 'Jürgen@Büro', '\u202e'],
];

/** What cloud-init's YAML reader (PyYAML, as cloud-init loads it) makes of a user-data file. */
function cloudInitRead(userData: string): {
  hostname: string;
  ssh_authorized_keys?: string[];
  bootcmd?: string[][];
  ssh_keys?: Record<string, string>;
  ssh_deletekeys?: boolean;
} {
  const read = 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.buffer)))';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', read], { input: userData, encoding: 'utf8' }));
}

/** cloud-init's own schema check of a user-data file (Debian's cloud-init on the test host). */
function cloudInitSchema(userData: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'user-data-'));
  try {
    writeFileSync(join(dir, 'user-data'), userData);
    return execFileSync(CLOUD_INIT, ['schema', '--config-file', join(dir, 'user-data')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('cloud-init NoCloud seed', () => {
  it('makes a valid host name of any service name', () => {
    expect(hostnameOf('Web 01', 'abcdef12-0000')).toBe('web-01');
    expect(hostnameOf('--Ünïcode__name--', 'abcdef12-0000')).toBe('n-code-name');
    expect(hostnameOf('***', 'abcdef12-0000')).toBe('vps-abcdef12');
    expect(hostnameOf('a'.repeat(70), 'x')).toHaveLength(63);
  });

  it('writes meta-data, #cloud-config user-data with root keys, and a DHCP network-config matched by MAC for user networking', () => {
    const mac = macAddressOf('11111111-2222-3333-4444-555555555555');
    expect(mac).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
    const files = seedFiles(
      { instanceId: 'iid-1', hostname: 'web-01', sshKeys: [KEY, 'ssh-ed25519 AAAA "quoted" key'] },
      { mode: 'user', mac, sshHost: '127.0.0.1', sshPort: 22001 },
    );
    expect(files['meta-data']).toBe('instance-id: "iid-1"\nlocal-hostname: "web-01"\n');
    expect(files['user-data'].split('\n')[0]).toBe('#cloud-config');
    expect(files['user-data']).toContain('disable_root: false');
    expect(files['user-data']).toContain(`ssh_authorized_keys:\n  - "${KEY}"\n  - "ssh-ed25519 AAAA \\"quoted\\" key"`);
    expect(files['network-config']).toBe(
      `version: 2\nethernets:\n  eth0:\n    match:\n      macaddress: "${mac}"\n    set-name: eth0\n    dhcp4: true\n`,
    );
  });

  it('hands the host keys the API keeps to cloud-init as ssh_keys, as its YAML reader and schema take them (issue 58)', () => {
    const key = generateHostKey('vps');
    const files = seedFiles({ instanceId: 'iid-1', hostname: 'web-01', sshKeys: [KEY], hostKeys: [key] }, null);
    const read = cloudInitRead(files['user-data']);
    expect(read.ssh_deletekeys).toBe(true);
    expect(read.ssh_keys).toEqual({ ed25519_private: key.privateKey, ed25519_public: key.publicKey });
    if (existsSync(CLOUD_INIT) || process.env.CI) expect(cloudInitSchema(files['user-data'])).toContain('Valid cloud-config');
    expect(seedFiles({ instanceId: 'iid-1', hostname: 'web-01', sshKeys: [KEY] }, null)['user-data']).not.toContain('ssh_keys');
  });

  it('writes static addresses, gateways and DNS for a bridge', () => {
    const { 'network-config': network } = seedFiles(
      { instanceId: 'iid-2', hostname: 'db', sshKeys: [] },
      {
        mode: 'bridge',
        mac: '52:54:00:00:00:01',
        bridge: 'br0',
        ipv4: { address: '203.0.113.7', prefix: 24, gateway: '203.0.113.1' },
        ipv6: { address: '2001:db8:1::100', prefix: 64, gateway: '2001:db8:1::1' },
        dns: ['192.0.2.53'],
      },
    );
    expect(network).toContain(
      '    addresses: ["203.0.113.7/24", "2001:db8:1::100/64"]\n    gateway4: "203.0.113.1"\n    gateway6: "2001:db8:1::1"',
    );
    expect(network).toContain('    nameservers:\n      addresses: ["192.0.2.53"]');
  });

  const BRIDGE = {
    mode: 'bridge' as const,
    mac: '52:54:00:00:00:02',
    bridge: 'br0',
    ipv4: { address: '203.0.113.8', prefix: 24, gateway: '203.0.113.1' },
    ipv6: null,
    dns: ['192.0.2.53', '2001:db8::53'],
  };

  it('puts the DNS servers in /etc/resolv.conf once per instance from bootcmd, only for a bridge that has some (issue 52)', () => {
    const seed = { instanceId: 'i', hostname: 'h', sshKeys: [] };
    const { bootcmd } = cloudInitRead(seedFiles(seed, BRIDGE)['user-data']);
    expect(bootcmd).toEqual([
      ['cloud-init-per', 'instance', 'resolv-conf', 'sh', '-c', RESOLV_CONF_SCRIPT, 'sh', '192.0.2.53', '2001:db8::53'],
    ]);
    expect(seedFiles(seed, { ...BRIDGE, dns: [] })['user-data']).not.toContain('bootcmd');
    expect(seedFiles(seed, { mode: 'user', mac: BRIDGE.mac, sshHost: '127.0.0.1', sshPort: 22001 })['user-data']).not.toContain('bootcmd');
  });

  it('writes a plain resolv.conf from the seed, and leaves one a resolver manages (a symlink, NetworkManager’s) as it is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'resolv-'));
    // The script on a file of the test's own, with no resolvconf on its PATH and no systemd-resolved.
    const script = (file: string) =>
      RESOLV_CONF_SCRIPT.replace('f=/etc/resolv.conf resolved=/run/systemd/resolve', `f=${file} resolved=${dir}/no-resolved`);
    const run = (file: string) =>
      execFileSync('/bin/sh', ['-c', script(file), 'sh', ...BRIDGE.dns], {
        env: { PATH: '/usr/bin:/bin' },
      });
    try {
      const plain = join(dir, 'plain');
      writeFileSync(plain, 'nameserver 10.0.2.3\n');
      run(plain);
      expect(readFileSync(plain, 'utf8')).toBe(
        '# From the cloud-init seed (NETWORK_DNS)\nnameserver 192.0.2.53\nnameserver 2001:db8::53\n',
      );
      const managed = join(dir, 'nm');
      writeFileSync(managed, '# Generated by NetworkManager\nnameserver 10.0.0.1\n');
      run(managed);
      expect(readFileSync(managed, 'utf8')).toBe('# Generated by NetworkManager\nnameserver 10.0.0.1\n');
      const link = join(dir, 'link');
      symlinkSync(managed, link);
      run(link);
      expect(readFileSync(managed, 'utf8')).toBe('# Generated by NetworkManager\nnameserver 10.0.0.1\n');
      mkdirSync(join(dir, 'no-resolved'));
      writeFileSync(plain, 'nameserver 127.0.0.53\n');
      run(plain);
      expect(readFileSync(plain, 'utf8')).toBe('nameserver 127.0.0.53\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  (existsSync(CLOUD_INIT) || process.env.CI ? it : it.skip)('runs as cloud-init runs bootcmd: its shell script of the quoted list', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bootcmd-'));
    try {
      const file = join(dir, 'resolv.conf');
      writeFileSync(file, 'nameserver 10.0.2.3\n');
      const [argv] = cloudInitRead(seedFiles({ instanceId: 'i', hostname: 'h', sshKeys: [] }, BRIDGE)['user-data']).bootcmd!;
      // cloud-init-per's "already ran for this instance" is cloud-init's; the command it runs is the rest.
      const command = argv
        .slice(3)
        .map((arg) => arg.replace('f=/etc/resolv.conf resolved=/run/systemd/resolve', `f=${file} resolved=${dir}/none`));
      const shellify = 'import json, sys; from cloudinit.util import shellify; sys.stdout.write(shellify(json.load(sys.stdin)))';
      const script = execFileSync('/usr/bin/python3', ['-c', shellify], { input: JSON.stringify([command]), encoding: 'utf8' });
      execFileSync('/bin/sh', ['-c', script], { env: { PATH: '/usr/bin:/bin' } });
      expect(readFileSync(file, 'utf8')).toBe('# From the cloud-init seed (NETWORK_DNS)\nnameserver 192.0.2.53\nnameserver 2001:db8::53\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  (existsSync(CLOUD_INIT) || process.env.CI ? it : it.skip)('passes cloud-init schema --config-file, with keys and without', () => {
    for (const sshKeys of [[KEY], []]) {
      const { 'user-data': userData } = seedFiles({ instanceId: 'i', hostname: 'h', sshKeys }, null);
      expect(cloudInitSchema(userData)).toMatch(/Valid cloud-config/);
    }
    expect(cloudInitSchema(seedFiles({ instanceId: 'i', hostname: 'h', sshKeys: [KEY] }, BRIDGE)['user-data'])).toMatch(
      /Valid cloud-config/,
    );
  });

  (existsSync(CLOUD_INIT) || process.env.CI ? it : it.skip)(
    'writes printable ASCII that cloud-init accepts and reads back as stored, whatever a key comment holds (issue 36, finding 5)',
    () => {
      const sshKeys = HOSTILE_COMMENTS.map((comment) => `${KEY} a${comment}b`);
      const { 'user-data': userData } = seedFiles({ instanceId: 'i', hostname: 'h\u0085\u2028', sshKeys }, null);
      expect(cloudInitSchema(userData)).toMatch(/Valid cloud-config/);
      expect(userData).toMatch(/^[\x20-\x7e\n]*$/);
      // Text the database holds has no lone surrogate: node-postgres and PGlite store one as U+FFFD.
      const stored = (text: string) => Buffer.from(text).toString();
      expect(cloudInitRead(userData)).toMatchObject({ hostname: 'h\u0085\u2028', ssh_authorized_keys: sshKeys.map(stored) });
    },
  );
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CleanupTiming,
  creationTarget,
  failOnLeftovers,
  remembering,
  removeDomainWith,
  removeUnsettled,
  removeVolumeWith,
  Virsh,
  VirshTimeout,
} from './libvirt-cleanup';

const FAST: CleanupTiming = { settleMs: 300, pollMs: 5 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A libvirtd as seen through virsh: domains and volumes by name. `slow` calls give up (their
 * timeout) at once and are carried out `landsAfterMs` later (never if Infinity), as libvirtd did
 * under load.
 */
class FakeLibvirtd {
  domains = new Set<string>();
  volumes = new Set<string>();
  removed: string[] = [];
  calls: string[] = [];
  slow = new Set<string>();
  stuck = new Set<string>();

  constructor(private readonly landsAfterMs = 50) {}

  readonly virsh: Virsh = async (command, ...args) => {
    this.calls.push(command);
    const name = args[args.length - 1];
    const carryOut = (make: () => void) => {
      if (!this.slow.has(command)) {
        make();
        return '';
      }
      if (this.landsAfterMs !== Infinity) setTimeout(make, this.landsAfterMs);
      throw new VirshTimeout(`virsh ${command}: timed out`);
    };
    const gone = (kind: string) => new Error(`virsh ${command} ${name}: error: failed to get ${kind} '${name}'`);
    switch (command) {
      case 'define':
        return carryOut(() => this.domains.add('web'));
      case 'vol-create-as':
        return carryOut(() => this.volumes.add(creationTarget([command, ...args])!.name));
      case 'destroy':
        if (!this.domains.has(args[0])) throw gone('domain');
        return '';
      case 'undefine':
        if (!this.domains.has(args[0]) || this.stuck.has(args[0])) throw gone('domain');
        this.domains.delete(args[0]);
        this.removed.push(args[0]);
        return '';
      case 'dominfo':
        if (!this.domains.has(name)) throw gone('domain');
        return 'State: shut off';
      case 'vol-delete':
        if (!this.volumes.delete(name)) throw gone('vol');
        this.removed.push(name);
        return '';
      case 'vol-info':
        if (!this.volumes.has(name)) throw gone('vol');
        return 'Type: file';
      default:
        throw new Error(`unexpected virsh ${command}`);
    }
  };
}

describe('libvirt test cleanup', () => {
  let dir: string;
  let xml: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'libvirt-cleanup-'));
    xml = join(dir, 'web.xml');
    writeFileSync(xml, "<domain type='qemu'><name>web</name><memory unit='MiB'>32</memory></domain>");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => failOnLeftovers());

  it('removes a domain whose define timed out and that libvirtd defines after the cleanup began', async () => {
    const libvirtd = new FakeLibvirtd();
    libvirtd.slow.add('define');
    const virsh = remembering(libvirtd.virsh, 'fake:///one');
    await expect(virsh('define', xml)).rejects.toBeInstanceOf(VirshTimeout);
    expect(libvirtd.domains.size).toBe(0);

    await removeDomainWith(virsh, 'fake:///one', 'web', FAST);
    expect(libvirtd.domains.size).toBe(0);
    expect(libvirtd.removed).toEqual(['web']);
  });

  it('removes a volume whose creation timed out, when the file cleans up what it did not remove itself', async () => {
    const libvirtd = new FakeLibvirtd();
    libvirtd.slow.add('vol-create-as');
    const virsh = remembering(libvirtd.virsh, 'fake:///two');
    await expect(virsh('vol-create-as', '--pool', 'default', '--name', 'web-root.qcow2', '--capacity', '1M')).rejects.toThrow(/timed out/);

    await removeUnsettled(virsh, 'fake:///two', FAST);
    expect(libvirtd.volumes.size).toBe(0);
    expect(libvirtd.removed).toEqual(['web-root.qcow2']);
  });

  it('removes a volume whose creation timed out and that libvirtd makes after the cleanup began', async () => {
    const libvirtd = new FakeLibvirtd();
    libvirtd.slow.add('vol-create-as');
    const virsh = remembering(libvirtd.virsh, 'fake:///seven');
    await expect(virsh('vol-create-as', 'default', 'web-seed.iso', '1M')).rejects.toThrow(VirshTimeout);

    await removeVolumeWith(virsh, 'fake:///seven', 'default', 'web-seed.iso', FAST);
    expect(libvirtd.volumes.size).toBe(0);
    expect(libvirtd.removed).toEqual(['web-seed.iso']);
  });

  it('waits for a creation still in flight when the cleanup begins (a hook that timed out leaves one running)', async () => {
    const libvirtd = new FakeLibvirtd();
    const slowDefine: Virsh = async (...args) => {
      if (args[0] === 'define') await sleep(100);
      return libvirtd.virsh(...args);
    };
    const virsh = remembering(slowDefine, 'fake:///three');
    const creating = virsh('define', xml);

    await removeDomainWith(virsh, 'fake:///three', 'web', FAST);
    await creating;
    expect(libvirtd.domains.size).toBe(0);
    expect(libvirtd.removed).toEqual(['web']);
  });

  it('believes "not found" at once when nothing was being created', async () => {
    const libvirtd = new FakeLibvirtd();
    await removeDomainWith(remembering(libvirtd.virsh, 'fake:///four'), 'fake:///four', 'web', FAST);
    expect(libvirtd.calls).toEqual(['destroy', 'undefine', 'dominfo']);
  });

  it('reports a creation that timed out and never lands as nothing left, once the wait is over', async () => {
    const libvirtd = new FakeLibvirtd(Infinity);
    libvirtd.slow.add('define');
    const virsh = remembering(libvirtd.virsh, 'fake:///five');
    await expect(virsh('define', xml)).rejects.toThrow(VirshTimeout);

    await removeDomainWith(virsh, 'fake:///five', 'web', FAST);
    expect(libvirtd.calls.filter((call) => call === 'dominfo').length).toBeGreaterThan(1);
    expect(libvirtd.removed).toEqual([]);
    expect(() => failOnLeftovers()).not.toThrow();
  });

  it('names what it could not remove after the file ends, and lets the rest of the cleanup run', async () => {
    const libvirtd = new FakeLibvirtd();
    libvirtd.domains.add('web');
    libvirtd.stuck.add('web');
    await removeDomainWith(remembering(libvirtd.virsh, 'fake:///six'), 'fake:///six', 'web', FAST);
    expect(() => failOnLeftovers()).toThrow('domain web on fake:///six: it still exists');
  });

  it.each([
    [['define', 'web.xml'], { kind: 'domain', name: 'web' }],
    [['create', '--file', 'web.xml', '--paused'], { kind: 'domain', name: 'web' }],
    [['vol-create-as', 'default', 'svc-1-seed.iso', '1M'], { kind: 'volume', name: 'svc-1-seed.iso', pool: 'default' }],
    [['vol-create-as', '--pool', 'p', 'a.qcow2', '1M', '--format', 'qcow2'], { kind: 'volume', name: 'a.qcow2', pool: 'p' }],
    [['vol-create-as', '--pool', 'p', '--name', 'b.img', '--capacity', '1M'], { kind: 'volume', name: 'b.img', pool: 'p' }],
    [['vol-create', 'default', 'web.xml'], { kind: 'volume', name: 'web', pool: 'default' }],
    [['define', 'missing.xml'], undefined],
    [['undefine', 'web'], undefined],
    [['list', '--all', '--name'], undefined],
  ])('knows what `virsh %j` creates', (args, target) => {
    const read = (file: string) => {
      if (file === 'missing.xml') throw new Error('ENOENT');
      return '<domain><name>web</name></domain>';
    };
    expect(creationTarget(args, read)).toEqual(target);
  });
});

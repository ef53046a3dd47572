import { diskBackendOf } from './disks-config';
import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: VPS disks', () => {
  afterEach(removeDataDirs);

  it('keeps VPS disks in the hypervisors’ pools by default, with the vps pool for rbd', () => {
    const { disks } = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(disks).toEqual({ backend: 'local', regions: {}, rbdPool: 'vps' });
    expect(diskBackendOf(disks, 'eu-central')).toBe('local');
  });

  it('reads a backend per region, the others taking DISK_BACKEND', () => {
    const { disks } = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      CEPH_MON_HOST: '10.0.0.1:6789',
      DISK_BACKEND_REGIONS: 'eu-central=rbd, us-east = local',
      DISKS_RBD_POOL: 'vps-eu',
    });
    expect(disks).toEqual({ backend: 'local', regions: { 'eu-central': 'rbd', 'us-east': 'local' }, rbdPool: 'vps-eu' });
    expect(diskBackendOf(disks, 'eu-central')).toBe('rbd');
    expect(diskBackendOf(disks, 'us-east')).toBe('local');
    expect(diskBackendOf(disks, 'ap-south')).toBe('local');
    expect(diskBackendOf({ ...disks, backend: 'rbd' }, 'ap-south')).toBe('rbd');
  });

  it('refuses an unknown backend, a malformed region entry, a bad pool name, and rbd without the monitors', () => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DISK_BACKEND: 'nfs' })[0]).toMatch(/^DISK_BACKEND/);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DISK_BACKEND_REGIONS: 'eu-central:rbd' })).toEqual([
      expect.stringMatching(/^DISK_BACKEND_REGIONS must be region=local or region=rbd pairs .*\(got "eu-central:rbd"\)$/),
    ]);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DISK_BACKEND_REGIONS: 'eu-central=ceph' })[0]).toMatch(/^DISK_BACKEND_REGIONS/);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DISKS_RBD_POOL: 'bad pool' })[0]).toMatch(/^DISKS_RBD_POOL/);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DISK_BACKEND_REGIONS: 'eu-central=rbd' })).toEqual([
      expect.stringMatching(/^CEPH_MON_HOST is required where DISK_BACKEND is rbd/),
    ]);
  });
});

import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: volumes', () => {
  afterEach(removeDataDirs);

  it('keeps volumes in the local pool by default, with the admin client and the volumes pool for rbd', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).volumes).toEqual({
      backend: 'local',
      cephMonitors: [],
      cephClientName: 'admin',
      cephClientKey: undefined,
      rbdPool: 'volumes',
      perVps: 16,
    });
  });

  it('reads the cluster of the rbd backend: monitors with or without a port, IPv6 in brackets, a client named either way', () => {
    const { volumes } = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      VOLUME_BACKEND: 'rbd',
      CEPH_MON_HOST: '10.0.0.1:6789, ceph-mon2.example.net, [2001:db8::3]:3300',
      CEPH_CLIENT_NAME: 'client.hosting',
      CEPH_CLIENT_KEY: 'AQBfS0ZlAAAAABAAjGbXWsP4eYpX0KQ1xTqxBg==',
      VOLUMES_RBD_POOL: 'vols-eu',
    });
    expect(volumes).toEqual({
      backend: 'rbd',
      cephMonitors: [
        { host: '10.0.0.1', port: 6789 },
        { host: 'ceph-mon2.example.net', port: 6789 },
        { host: '2001:db8::3', port: 3300 },
      ],
      cephClientName: 'hosting',
      cephClientKey: 'AQBfS0ZlAAAAABAAjGbXWsP4eYpX0KQ1xTqxBg==',
      rbdPool: 'vols-eu',
      perVps: 16,
    });
  });

  it('needs the monitors for rbd', () => {
    const found = problems({ DATA_DIR: dataDir(), ...secrets, VOLUME_BACKEND: 'rbd' });
    expect(found).toEqual([expect.stringMatching(/^CEPH_MON_HOST is required with VOLUME_BACKEND=rbd/)]);
  });

  it('refuses an unknown backend, a bad monitor, client, key or pool, naming each variable', () => {
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      VOLUME_BACKEND: 'nfs',
      CEPH_MON_HOST: '10.0.0.1:99999,[not-v6]:6789',
      CEPH_CLIENT_NAME: 'bad name',
      CEPH_CLIENT_KEY: 'not a key!',
      VOLUMES_RBD_POOL: '../volumes',
    });
    for (const name of ['VOLUME_BACKEND', 'CEPH_MON_HOST', 'CEPH_CLIENT_NAME', 'CEPH_CLIENT_KEY', 'VOLUMES_RBD_POOL']) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
    expect(found.filter((problem) => problem.startsWith('CEPH_MON_HOST'))).toHaveLength(2);
    // The key itself is never repeated in a message.
    expect(found.join('\n')).not.toContain('not a key!');
  });
});

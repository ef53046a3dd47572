import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: hosts', () => {
  afterEach(removeDataDirs);

  it('spreads VPSes and waits 120 s before a silent host is unreachable, by default', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).hosts).toEqual({ placementPolicy: 'spread', unreachableGraceSeconds: 120 });
  });

  it('reads the policy and the grace', () => {
    const { hosts } = loadConfig({ DATA_DIR: dataDir(), ...secrets, PLACEMENT_POLICY: 'pack', HOST_UNREACHABLE_GRACE_SECONDS: '0' });
    expect(hosts).toEqual({ placementPolicy: 'pack', unreachableGraceSeconds: 0 });
  });

  it('refuses an unknown policy and a negative grace, naming each variable', () => {
    const found = problems({ DATA_DIR: dataDir(), ...secrets, PLACEMENT_POLICY: 'random', HOST_UNREACHABLE_GRACE_SECONDS: '-1' });
    for (const name of ['PLACEMENT_POLICY', 'HOST_UNREACHABLE_GRACE_SECONDS']) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });
});

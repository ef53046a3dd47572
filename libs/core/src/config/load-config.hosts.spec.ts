import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: hosts', () => {
  afterEach(removeDataDirs);

  it('spreads VPSes, waits 120 s before a silent host is unreachable and 600 s for a live move, by default', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).hosts).toEqual({
      placementPolicy: 'spread',
      unreachableGraceSeconds: 120,
      migrationTimeoutSeconds: 600,
    });
  });

  it('reads the policy, the grace and the live move timeout', () => {
    const env = { PLACEMENT_POLICY: 'pack', HOST_UNREACHABLE_GRACE_SECONDS: '0', MIGRATION_TIMEOUT_SECONDS: '30' };
    const { hosts } = loadConfig({ DATA_DIR: dataDir(), ...secrets, ...env });
    expect(hosts).toEqual({ placementPolicy: 'pack', unreachableGraceSeconds: 0, migrationTimeoutSeconds: 30 });
  });

  it('refuses an unknown policy, a negative grace and a zero timeout, naming each variable', () => {
    const env = { PLACEMENT_POLICY: 'random', HOST_UNREACHABLE_GRACE_SECONDS: '-1', MIGRATION_TIMEOUT_SECONDS: '0' };
    const found = problems({ DATA_DIR: dataDir(), ...secrets, ...env });
    for (const name of ['PLACEMENT_POLICY', 'HOST_UNREACHABLE_GRACE_SECONDS', 'MIGRATION_TIMEOUT_SECONDS']) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });
});

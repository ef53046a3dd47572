import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: rescue', () => {
  afterEach(removeDataDirs);

  it('has no rescue image named, 24 hours and 5 rescues an hour by default', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config.rescue).toEqual({ image: undefined, hours: 24 });
    expect(config.rateLimit.rescuePerHour).toBe(5);
  });

  it('reads the image slug, the hours and the limit', () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      RESCUE_IMAGE: 'debian-12-rescue',
      RESCUE_HOURS: '2',
      RATE_LIMIT_RESCUE_PER_HOUR: '1',
    });
    expect(config.rescue).toEqual({ image: 'debian-12-rescue', hours: 2 });
    expect(config.rateLimit.rescuePerHour).toBe(1);
  });

  it('refuses a slug that is none and hours out of range, naming each variable', () => {
    const found = problems({ DATA_DIR: dataDir(), ...secrets, RESCUE_IMAGE: 'Debian 12', RESCUE_HOURS: '0' });
    expect(found.some((p) => p.startsWith('RESCUE_IMAGE'))).toBe(true);
    expect(found.some((p) => p.startsWith('RESCUE_HOURS'))).toBe(true);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, RESCUE_HOURS: '721' })).toHaveLength(1);
  });
});

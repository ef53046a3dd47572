import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: metrics', () => {
  afterEach(removeDataDirs);

  it('has no metrics system by default, a 5 s timeout, a 5 s cache and 60 reads a minute per account', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config.metrics).toEqual({ prometheusUrl: undefined, regionUrls: {}, timeoutMs: 5000, cacheSeconds: 5 });
    expect(config.rateLimit.metricsPerMinute).toBe(60);
  });

  it('reads the default query API, one per region and the timeout', () => {
    const { metrics } = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      METRICS_PROMETHEUS_URL: 'http://prometheus.internal:9090/',
      METRICS_PROMETHEUS_REGION_URLS: 'eu-central=http://vm.eu-central:8428, us-east = https://thanos.us-east/prom/',
      METRICS_TIMEOUT_MS: '1500',
      METRICS_CACHE_SECONDS: '0',
    });
    expect(metrics).toEqual({
      prometheusUrl: 'http://prometheus.internal:9090',
      regionUrls: { 'eu-central': 'http://vm.eu-central:8428', 'us-east': 'https://thanos.us-east/prom' },
      timeoutMs: 1500,
      cacheSeconds: 0,
    });
  });

  it('refuses unusable metrics settings, naming each variable', () => {
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      METRICS_PROMETHEUS_URL: 'ftp://prometheus',
      METRICS_PROMETHEUS_REGION_URLS: 'eu-central',
      METRICS_TIMEOUT_MS: '0',
      METRICS_CACHE_SECONDS: '61',
      RATE_LIMIT_METRICS_PER_MINUTE: '-1',
    });
    for (const name of [
      'METRICS_PROMETHEUS_URL',
      'METRICS_PROMETHEUS_REGION_URLS',
      'METRICS_TIMEOUT_MS',
      'METRICS_CACHE_SECONDS',
      'RATE_LIMIT_METRICS_PER_MINUTE',
    ]) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
    expect(problems({ DATA_DIR: dataDir(), ...secrets, METRICS_PROMETHEUS_REGION_URLS: 'EU=http://x' })).toHaveLength(1);
  });
});

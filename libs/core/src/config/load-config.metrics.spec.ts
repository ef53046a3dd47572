import { loadConfig } from './load-config';
import { dataDir, problems, secrets } from './load-config.fixtures';

describe('loadConfig: metrics', () => {
  it('has no metrics system by default and a 5 s timeout', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).metrics).toEqual({ prometheusUrl: undefined, regionUrls: {}, timeoutMs: 5000 });
  });

  it('reads the default query API, one per region and the timeout', () => {
    const { metrics } = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      METRICS_PROMETHEUS_URL: 'http://prometheus.internal:9090/',
      METRICS_PROMETHEUS_REGION_URLS: 'eu-central=http://vm.eu-central:8428, us-east = https://thanos.us-east/prom/',
      METRICS_TIMEOUT_MS: '1500',
    });
    expect(metrics).toEqual({
      prometheusUrl: 'http://prometheus.internal:9090',
      regionUrls: { 'eu-central': 'http://vm.eu-central:8428', 'us-east': 'https://thanos.us-east/prom' },
      timeoutMs: 1500,
    });
  });

  it('refuses unusable metrics settings, naming each variable', () => {
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      METRICS_PROMETHEUS_URL: 'ftp://prometheus',
      METRICS_PROMETHEUS_REGION_URLS: 'eu-central',
      METRICS_TIMEOUT_MS: '0',
    });
    for (const name of ['METRICS_PROMETHEUS_URL', 'METRICS_PROMETHEUS_REGION_URLS', 'METRICS_TIMEOUT_MS']) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
    expect(problems({ DATA_DIR: dataDir(), ...secrets, METRICS_PROMETHEUS_REGION_URLS: 'EU=http://x' })).toHaveLength(1);
  });
});

import type { MetricsConfig } from './app-config';
import type { EnvReader } from './env-reader';

const REGION = /^[a-z0-9-]{1,32}$/;
const HTTP_URL = /^https?:\/\/[^\s,]+$/;

/** METRICS_PROMETHEUS_URL, METRICS_PROMETHEUS_REGION_URLS (`region=url,...`), METRICS_TIMEOUT_MS and METRICS_CACHE_SECONDS. */
export function metricsConfig(env: EnvReader): MetricsConfig {
  const prometheusUrl = env.url('METRICS_PROMETHEUS_URL', undefined, ['http:', 'https:'])?.replace(/\/+$/, '');
  const regionUrls: Record<string, string> = {};
  for (const entry of (env.string('METRICS_PROMETHEUS_REGION_URLS', '') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    const [region, url] = [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
    if (at < 0 || !REGION.test(region) || !HTTP_URL.test(url)) {
      env.problems.push(
        `METRICS_PROMETHEUS_REGION_URLS must be region=url pairs separated by commas, e.g. eu-central=http://prometheus.eu-central:9090 (got "${entry}")`,
      );
    } else regionUrls[region] = url.replace(/\/+$/, '');
  }
  return {
    prometheusUrl,
    regionUrls,
    timeoutMs: env.int('METRICS_TIMEOUT_MS', 5000, 100, 60_000),
    cacheSeconds: env.int('METRICS_CACHE_SECONDS', 5, 0, 60),
  };
}

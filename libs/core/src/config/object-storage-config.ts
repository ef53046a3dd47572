import type { ObjectStorageConfig } from './app-config';
import type { EnvReader } from './env-reader';

const ZONEGROUP = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** OBJECT_STORAGE_PROVIDER and the RGW gateway's settings. */
export function objectStorageConfig(env: EnvReader): ObjectStorageConfig {
  const provider = env.oneOf('OBJECT_STORAGE_PROVIDER', ['simulator', 'rgw'] as const, 'simulator');
  const regionUrls: Record<string, string> = {};
  for (const entry of (env.string('RGW_REGION_URLS', '') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    const [region, url] = [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
    if (at < 0 || !ZONEGROUP.test(region) || !/^https?:\/\/[^\s,]+$/.test(url)) {
      env.problems.push(
        `RGW_REGION_URLS must be zonegroup=url pairs separated by commas, e.g. eu-central=https://s3.eu-central.example.net (got "${entry}")`,
      );
    } else regionUrls[region] = url.replace(/\/+$/, '');
  }
  const rawDays = env.string('OBJECT_STORAGE_PURGE_AFTER_DAYS', '7')!;
  let purgeAfterDays = Number(rawDays);
  if (!/^\d+(\.\d+)?$/.test(rawDays) || purgeAfterDays > 3650) {
    env.problems.push(`OBJECT_STORAGE_PURGE_AFTER_DAYS must be a number of days from 0 to 3650, fractions allowed (got "${rawDays}")`);
    purgeAfterDays = 7;
  }
  const config: ObjectStorageConfig = {
    provider,
    rgwAdminUrl: env.url('RGW_ADMIN_URL', undefined, ['http:', 'https:'])?.replace(/\/+$/, ''),
    rgwAdminAccessKey: env.string('RGW_ADMIN_ACCESS_KEY'),
    rgwAdminSecretKey: env.string('RGW_ADMIN_SECRET_KEY'),
    rgwZonegroup: env.string('RGW_ZONEGROUP', 'default')!,
    regionUrls,
    endpoint: env.url('OBJECT_STORAGE_ENDPOINT', undefined, ['http:', 'https:'])?.replace(/\/+$/, ''),
    purgeAfterDays,
    requestTimeoutMs: env.int('RGW_TIMEOUT_MS', 10_000, 100, 120_000),
    retrySeconds: env.int('OBJECT_STORAGE_RETRY_SECONDS', 5, 1, 3600),
    usageRefreshSeconds: env.int('OBJECT_STORAGE_USAGE_REFRESH_SECONDS', 900, 60, 86_400),
  };
  if (!ZONEGROUP.test(config.rgwZonegroup)) env.problems.push(`RGW_ZONEGROUP must be a zonegroup name (got "${config.rgwZonegroup}")`);
  if (provider === 'rgw' && (!config.rgwAdminUrl || !config.rgwAdminAccessKey || !config.rgwAdminSecretKey)) {
    env.problems.push('RGW_ADMIN_URL, RGW_ADMIN_ACCESS_KEY and RGW_ADMIN_SECRET_KEY are required when OBJECT_STORAGE_PROVIDER=rgw');
  }
  return config;
}

import type { RescueConfig } from './vps-settings';
import type { EnvReader } from './env-reader';

const SLUG = /^[a-z0-9][a-z0-9.-]{0,63}$/;

/** RESCUE_IMAGE (an image slug, as image:add takes it) and RESCUE_HOURS (1 to 720, default 24). */
export function rescueConfig(env: EnvReader): RescueConfig {
  const image = env.string('RESCUE_IMAGE');
  if (image !== undefined && !SLUG.test(image)) {
    env.problems.push(`RESCUE_IMAGE must be an image slug such as debian-12-rescue (got "${image}")`);
  }
  return { image: image !== undefined && SLUG.test(image) ? image : undefined, hours: env.int('RESCUE_HOURS', 24, 1, 720) };
}

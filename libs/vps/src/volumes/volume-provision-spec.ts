import { ProvisionSpec, ProvisionSpecError } from '@app/services';
import type { VolumeSpecs } from '@app/products';
import { VPS_REGIONS } from '../vps.types';

/** A volume's options of a ProvisionSpec (`service:provision --type volume --size-gb 100 --region eu-central`). */
export interface VolumeProvisionSpec extends ProvisionSpec {
  /** GiB, within the product's bounds; default its smallest. The command line gives it as text. */
  sizeGb?: number | string;
  /** Default `eu-central`; it attaches to VPSes of this region. */
  region?: string;
}

export const VOLUME_SPEC_OPTIONS = ['sizeGb', 'region'] as const;

/** The size asked, as a whole number of GiB; undefined when none was given. */
export function sizeOf(spec: VolumeProvisionSpec): number | undefined {
  if (spec.sizeGb === undefined) return undefined;
  const size = typeof spec.sizeGb === 'number' ? spec.sizeGb : /^\d{1,6}$/.test(spec.sizeGb) ? Number(spec.sizeGb) : NaN;
  if (!Number.isInteger(size) || size < 1) throw new ProvisionSpecError('sizeGb', 'must be a whole number of GiB');
  return size;
}

export function checkVolumeSpec(spec: VolumeProvisionSpec): void {
  sizeOf(spec);
  if (spec.region !== undefined && !VPS_REGIONS.includes(spec.region as (typeof VPS_REGIONS)[number]))
    throw new ProvisionSpecError('region', `must be one of ${VPS_REGIONS.join(', ')}`);
}

/** The size within the product's bounds (ProvisionSpecError names the option otherwise). */
export function sizeWithin(spec: VolumeProvisionSpec, product: VolumeSpecs): number {
  const size = sizeOf(spec) ?? product.minSizeGb;
  if (size < product.minSizeGb || size > product.maxSizeGb)
    throw new ProvisionSpecError('sizeGb', `must be from ${product.minSizeGb} to ${product.maxSizeGb} GiB`);
  return size;
}

import { ProvisionSpec, ProvisionSpecError } from '@app/services';
import { VPS_REGIONS } from '../vps.types';

/** A VPS's options of a ProvisionSpec (the operator's command passes them as `--power-state`, `--region`...). */
export interface VpsProvisionSpec extends ProvisionSpec {
  /** Default `running` for an active service, `stopped` otherwise. */
  powerState?: 'running' | 'stopped';
  /** Default `eu-central`. */
  region?: string;
  /** Count 1: adopt this existing machine (libvirt domain name or UUID) instead. */
  providerRef?: string;
  /** Install this image (slug or id) on a root disk of the product's size, with a cloud-init seed. */
  image?: string;
  /** With `image`: the account's keys root logs in with (ids, or comma-separated); default all of them. */
  sshKeys?: 'all' | string[] | string;
}

export const VPS_SPEC_OPTIONS = ['powerState', 'region', 'providerRef', 'image', 'sshKeys'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Refuses what cannot be provisioned as given (ProvisionSpecError names the option). */
export function checkVpsSpec(spec: VpsProvisionSpec, count: number): void {
  const oneOf = (field: string, value: unknown, allowed: readonly string[]) => {
    if (value !== undefined && !allowed.includes(value as string))
      throw new ProvisionSpecError(field, `must be one of ${allowed.join(', ')}`);
  };
  oneOf('powerState', spec.powerState, ['running', 'stopped']);
  oneOf('region', spec.region, VPS_REGIONS);
  if (spec.providerRef !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/.test(spec.providerRef))
    throw new ProvisionSpecError('providerRef', 'must be a domain name or UUID (letters, digits, . _ : -)');
  if (spec.image !== undefined && !/^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/.test(spec.image))
    throw new ProvisionSpecError('image', 'must be an image slug or id (image:add lists it)');
  if (spec.providerRef !== undefined && count !== 1)
    throw new ProvisionSpecError('providerRef', 'adopts one existing machine: it needs a count of 1');
  if (spec.image !== undefined && spec.providerRef !== undefined)
    throw new ProvisionSpecError('image', 'installs a new VPS: it cannot go with providerRef (an adopted machine)');
  if (spec.sshKeys !== undefined && spec.image === undefined)
    throw new ProvisionSpecError('sshKeys', "needs an image: the keys are written by the image's cloud-init");
  sshKeysOf(spec.sshKeys);
}

/** `all` or key ids (of the account: another's is refused like an unknown one), as an array or comma-separated. */
export function sshKeysOf(value: VpsProvisionSpec['sshKeys']): 'all' | string[] {
  if (value === undefined || value === 'all') return 'all';
  const ids = (Array.isArray(value) ? value : value.split(',')).map((id) => id.trim().toLowerCase());
  if (!ids.length || ids.some((id) => !UUID.test(id)))
    throw new ProvisionSpecError('sshKeys', 'must be all or SSH key ids (UUIDs) separated by commas');
  return [...new Set(ids)];
}

import { Injectable } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { AccountsService } from '@app/accounts';
import { CliArgs, CliCommand, CliUsageError, requireArg, staffActor, validateInput } from '@app/core';
import { BILLING_CYCLES, BillingCycle } from '@app/products';
import { MAX_PROVISION_COUNT, ServiceProvisioner } from '../service-provisioner';
import { SERVICE_STATUSES, SERVICE_TYPES, ServiceStatus, ServiceType, VPS_REGIONS } from '../service.types';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const oneOf = (name: string, allowed: readonly string[]) => ({ message: `${name} must be one of ${allowed.join(', ')}` });

/** The options of service:provision (there is no HTTP route that orders services). */
class ProvisionServicesInput {
  @IsIn(SERVICE_TYPES, oneOf('type', SERVICE_TYPES))
  type: ServiceType;

  @IsInt({ message: `count must be a whole number from 1 to ${MAX_PROVISION_COUNT}` })
  @Min(1, { message: `count must be a whole number from 1 to ${MAX_PROVISION_COUNT}` })
  @Max(MAX_PROVISION_COUNT, { message: `count must be a whole number from 1 to ${MAX_PROVISION_COUNT}` })
  count: number;

  @IsOptional()
  @IsIn(SERVICE_STATUSES, oneOf('status', SERVICE_STATUSES))
  status?: ServiceStatus;

  @IsOptional()
  @IsString()
  product?: string;

  @IsOptional()
  @IsIn(BILLING_CYCLES, oneOf('billing-cycle', BILLING_CYCLES))
  billingCycle?: BillingCycle;

  @IsOptional()
  @Transform(trimmed)
  @Length(1, 90, { message: 'name must be 1 to 90 characters' })
  name?: string;

  @IsOptional()
  @IsIn(['running', 'stopped'], oneOf('power-state', ['running', 'stopped']))
  powerState?: 'running' | 'stopped';

  @IsOptional()
  @IsIn(VPS_REGIONS, oneOf('region', VPS_REGIONS))
  region?: string;

  @IsOptional()
  @Transform(trimmed)
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, { message: 'provider-ref must be a domain name or UUID (letters, digits, . _ : -)' })
  providerRef?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/, { message: 'image must be an image slug or id (image:add lists it)' })
  image?: string;
}

@Injectable()
export class ServiceProvisionCommand extends CliCommand {
  readonly name = 'service:provision';
  readonly usage =
    'service:provision --email <account> --type vps|object_storage [--count N] [--status pending|active|suspended|cancelled|terminated] ' +
    '[--product <slug>] [--billing-cycle <cycle>] [--name <name>] [--power-state running|stopped] [--region <region>] [--provider-ref <domain name or uuid>] ' +
    '[--image <slug> [--ssh-keys all|<id,...>]] [--no-wait]';
  readonly options = [
    'email',
    'type',
    'count',
    'status',
    'product',
    'billing-cycle',
    'name',
    'power-state',
    'region',
    'provider-ref',
    'image',
    'ssh-keys',
  ];
  override readonly flags = ['no-wait'];

  constructor(
    private readonly provisioner: ServiceProvisioner,
    private readonly accounts: AccountsService,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const email = requireArg(args, 'email');
    const input = await validateInput(ProvisionServicesInput, {
      type: requireArg(args, 'type'),
      // Whole digits only: Number() alone would take '1e3' or ' 7'.
      count: args.count === undefined ? 1 : /^\d+$/.test(String(args.count)) ? Number(args.count) : NaN,
      status: args.status,
      product: args.product,
      billingCycle: args['billing-cycle'],
      name: args.name,
      powerState: args['power-state'],
      region: args.region,
      providerRef: args['provider-ref'],
      image: args.image,
    });
    const { type, count, providerRef } = input;
    const sshKeys = sshKeysOf(args['ssh-keys']);
    if (sshKeys !== undefined && input.image === undefined)
      throw new CliUsageError('--ssh-keys needs --image: the keys are written by its cloud-init');
    if (input.image !== undefined && (type !== 'vps' || providerRef !== undefined)) {
      throw new CliUsageError('--image installs a new VPS: it needs --type vps and no --provider-ref');
    }
    if (type !== 'vps' && (input.powerState || input.region)) throw new CliUsageError('--power-state and --region apply to a vps only');
    if (providerRef !== undefined && (type !== 'vps' || count !== 1)) {
      throw new CliUsageError('--provider-ref adopts one existing machine: it needs --type vps and a count of 1');
    }
    const account = await this.accounts.findByEmail(email);
    if (!account) throw new CliUsageError(`No account with email ${email}`);
    return this.provisioner.provision(
      account.id,
      {
        type,
        status: input.status,
        productSlug: input.product,
        billingCycle: input.billingCycle,
        name: input.name,
        powerState: input.powerState,
        region: input.region,
        // Machines on the hypervisor come with each VPS (nothing to make on the simulator).
        machines: true,
        providerRef,
        image: input.image,
        sshKeys,
        // By default the machines are made here, and the lines show how each ended.
        wait: args['no-wait'] !== true,
        actor: staffActor(),
      },
      count,
    );
  }
}

/** `all` or comma-separated key ids (of the account: another's is refused like an unknown one). */
function sshKeysOf(value: string | boolean | undefined): 'all' | string[] | undefined {
  if (value === undefined) return undefined;
  if (value === 'all') return 'all';
  const ids = typeof value === 'string' ? value.split(',').map((id) => id.trim().toLowerCase()) : [];
  if (!ids.length || ids.some((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id))) {
    throw new CliUsageError('--ssh-keys must be all or SSH key ids (UUIDs) separated by commas');
  }
  return [...new Set(ids)];
}

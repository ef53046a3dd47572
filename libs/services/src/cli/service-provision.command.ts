import { Injectable } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { AccountsService } from '@app/accounts';
import { CliArgs, CliCommand, CliUsageError, requireArg, staffActor, validateInput } from '@app/core';
import { BILLING_CYCLES, BillingCycle } from '@app/products';
import { ProvisionSpec, ProvisionSpecError } from '../kinds/provision-spec';
import { ServiceKinds } from '../kinds/service-kinds';
import { MAX_PROVISION_COUNT, ServiceProvisioner } from '../service-provisioner';
import { SERVICE_STATUSES, SERVICE_TYPES, ServiceStatus, ServiceType } from '../service.types';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const oneOf = (name: string, allowed: readonly string[]) => ({ message: `${name} must be one of ${allowed.join(', ')}` });
const flagOf = (option: string) => option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const COMMON_OPTIONS = ['email', 'type', 'count', 'status', 'product', 'billing-cycle', 'name'];

/** The options every kind takes (there is no HTTP route that orders services); a kind's own are checked by the kind. */
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
}

/** The operator's service:provision; each kind's options (ServiceKind.options) are taken as `--kebab-case` flags. */
@Injectable()
export class ServiceProvisionCommand extends CliCommand {
  readonly name = 'service:provision';
  override readonly flags = ['no-wait'];

  constructor(
    private readonly provisioner: ServiceProvisioner,
    private readonly accounts: AccountsService,
    private readonly kinds: ServiceKinds,
  ) {
    super();
  }

  get usage(): string {
    const kindOptions = this.kindOptions().map((option) => `[--${flagOf(option)} <value>]`);
    return (
      `service:provision --email <account> --type ${SERVICE_TYPES.join('|')} [--count N] [--status ${SERVICE_STATUSES.join('|')}] ` +
      `[--product <slug>] [--billing-cycle <cycle>] [--name <name>] ${kindOptions.join(' ')} [--no-wait]`
    );
  }

  get options(): string[] {
    return [...COMMON_OPTIONS, ...this.kindOptions().map(flagOf)];
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
    });
    const spec: ProvisionSpec = {
      type: input.type,
      status: input.status,
      productSlug: input.product,
      billingCycle: input.billingCycle,
      name: input.name,
      // What a service runs outside the database comes with it (nothing to make on the simulator).
      machines: true,
      // By default the machines are made here, and the lines show how each ended.
      wait: args['no-wait'] !== true,
      actor: staffActor(),
    };
    for (const option of this.kindOptions()) {
      const value = args[flagOf(option)];
      if (value !== undefined) spec[option] = typeof value === 'string' ? value.trim() : value;
    }
    try {
      this.provisioner.checkSpec(spec, input.count);
    } catch (err) {
      if (err instanceof ProvisionSpecError) throw new CliUsageError(`--${flagOf(err.field)} ${err.reason}`);
      throw err;
    }
    const account = await this.accounts.findByEmail(email);
    if (!account) throw new CliUsageError(`No account with email ${email}`);
    return this.provisioner.provision(account.id, spec, input.count);
  }

  private kindOptions(): string[] {
    return [...new Set(SERVICE_TYPES.flatMap((type) => this.kinds.optionsOf(type)))];
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CliArgs, CliCommand, CliUsageError, requireArg } from '@app/core';
import { BILLING_CYCLES } from '@app/products';
import { MAX_PROVISION_COUNT, ServiceProvisioner } from '../service-provisioner';
import { SERVICE_STATUSES, SERVICE_TYPES, VPS_REGIONS } from '../service.types';
import { oneOf } from './cli-values';

@Injectable()
export class ServiceProvisionCommand extends CliCommand {
  readonly name = 'service:provision';
  readonly usage =
    'service:provision --email <account> --type vps|object_storage [--count N] [--status pending|active|suspended|cancelled|terminated] ' +
    '[--product <slug>] [--billing-cycle <cycle>] [--name <name>] [--power-state running|stopped] [--region <region>]';
  readonly options = ['email', 'type', 'count', 'status', 'product', 'billing-cycle', 'name', 'power-state', 'region'];

  constructor(
    private readonly provisioner: ServiceProvisioner,
    private readonly dataSource: DataSource,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const email = requireArg(args, 'email');
    const type = oneOf(args, 'type', SERVICE_TYPES);
    if (!type) throw new CliUsageError('--type is required');
    const count = args.count === undefined ? 1 : Number(args.count);
    if (typeof args.count === 'string' && (!/^\d+$/.test(args.count) || count < 1 || count > MAX_PROVISION_COUNT)) {
      throw new CliUsageError(`--count must be a whole number from 1 to ${MAX_PROVISION_COUNT}`);
    }
    const powerState = oneOf(args, 'power-state', ['running', 'stopped'] as const);
    const region = oneOf(args, 'region', VPS_REGIONS);
    if (type !== 'vps' && (powerState || region)) throw new CliUsageError('--power-state and --region apply to a vps only');
    const name = typeof args.name === 'string' ? args.name.trim() : undefined;
    if (name !== undefined && (name.length < 1 || name.length > 90)) throw new CliUsageError('--name must be 1 to 90 characters');

    // accounts is a platform table; this area reads it without depending on the auth module.
    const [account]: { id: string }[] = await this.dataSource.query('SELECT id FROM accounts WHERE email = lower($1)', [email.trim()]);
    if (!account) throw new CliUsageError(`No account with email ${email}`);
    return this.provisioner.provision(
      account.id,
      {
        type,
        status: oneOf(args, 'status', SERVICE_STATUSES),
        productSlug: typeof args.product === 'string' ? args.product : undefined,
        billingCycle: oneOf(args, 'billing-cycle', BILLING_CYCLES),
        name,
        powerState,
        region,
      },
      count,
    );
  }
}

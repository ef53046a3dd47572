import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, AppConfig, PageQuery, Paginated, paginated, Principal, Problem, TransactionRunner } from '@app/core';
import { InstanceActionResponse } from '../actions/dto/instance-action.response';
import { InstanceActionsService } from '../actions/instance-actions.service';
import { isVps, notAVps, VpsState, VpsStates } from '../instances/vps-states';
import { nextBackupSlot } from './backup-slot';
import { BackupResponse } from './dto/backup.response';
import { BackupSettingsResponse } from './dto/backup-settings.response';
import { BackupRow, BackupsRepository } from './backups.repository';

/** A customer's backups of one VPS: switched on and off, listed, restored. */
@Injectable()
export class BackupsService {
  constructor(
    private readonly states: VpsStates,
    private readonly backups: BackupsRepository,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly actions: InstanceActionsService,
    private readonly config: AppConfig,
  ) {}

  async settings(serviceId: string): Promise<BackupSettingsResponse> {
    const schedule = await this.backups.schedule(serviceId);
    return { enabled: !!schedule, nextRunAt: schedule?.nextRunAt ?? null, retention: this.config.backups.retention };
  }

  /** Daily backups from the VPS's next slot; enabling an enabled VPS changes nothing (200 all the same). */
  async enable(caller: Principal, serviceId: string): Promise<BackupSettingsResponse> {
    await this.tx.run(async (m) => {
      const service = await this.lockActive(m, caller.accountId, serviceId, 'backups need');
      if (await this.backups.schedule(serviceId, m)) return;
      await this.backups.enable(m, serviceId, nextBackupSlot(serviceId, new Date(), this.config.backups.window));
      await this.record(m, caller, service.id, 'instance.backups_enable');
    });
    return this.settings(serviceId);
  }

  /** No more daily backups; those made stay listed and restorable until the VPS is terminated. */
  async disable(caller: Principal, serviceId: string): Promise<BackupSettingsResponse> {
    await this.tx.run(async (m) => {
      const service = this.requireVps(await this.states.lockFor(m, caller.accountId, serviceId));
      if (!(await this.backups.schedule(serviceId, m))) return;
      await this.backups.disable(m, serviceId);
      await this.record(m, caller, service.id, 'instance.backups_disable');
    });
    return this.settings(serviceId);
  }

  async list(accountId: string, serviceId: string, query: PageQuery): Promise<Paginated<BackupResponse>> {
    this.requireVps(await this.states.forAccount(accountId, serviceId));
    const { rows, total } = await this.backups.page(serviceId, query);
    return paginated(rows.map(BackupResponse.fromRow), query, total);
  }

  /** A restore action (202) that puts the backup's disk back and boots it; the state rules of a rebuild apply. */
  async restore(caller: Principal, serviceId: string, backupId: string): Promise<InstanceActionResponse> {
    const backup = await this.available(caller.accountId, serviceId, backupId);
    return this.actions.request(caller, serviceId, 'restore', {
      restore: { backupId, key: backup.storage_key, sizeBytes: Number(backup.size_bytes) },
    });
  }

  /** The caller's available backup of the caller's VPS (404 for anyone else's, 409 while it runs or after it failed). */
  async available(accountId: string, serviceId: string, backupId: string): Promise<BackupRow> {
    this.requireVps(await this.states.forAccount(accountId, serviceId));
    const backup = await this.backups.findForService(serviceId, backupId);
    if (!backup) throw Problem.notFound('Backup');
    if (backup.status !== 'available')
      throw Problem.conflict('invalid_state', `The backup is ${backup.status}; only an available one can be used.`);
    return backup;
  }

  /**
   * The caller's VPS under its row lock, as the power actions decide: anything but active is 409
   * (`needs` completes "The service is suspended; ... an active service.").
   */
  async lockActive(m: EntityManager, accountId: string, serviceId: string, needs: string): Promise<VpsState> {
    const vps = this.requireVps(await this.states.lockFor(m, accountId, serviceId));
    if (vps.status !== 'active') throw Problem.conflict('invalid_state', `The service is ${vps.status}; ${needs} an active service.`);
    return vps;
  }

  private requireVps(service: VpsState | null): VpsState {
    if (!service) throw Problem.notFound('Service');
    if (!isVps(service)) throw notAVps();
    return service;
  }

  private async record(
    m: Parameters<ActivityLog['record']>[0],
    caller: Principal,
    serviceId: string,
    action: 'instance.backups_enable' | 'instance.backups_disable',
  ) {
    await this.activity.record(m, { accountId: caller.accountId, caller, action, entity: { type: 'service', id: serviceId }, details: {} });
  }
}

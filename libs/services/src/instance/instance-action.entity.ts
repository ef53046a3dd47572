import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ActionStatus, ActionType, PowerState } from '../service.types';

@Entity('instance_actions')
export class InstanceAction {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'service_id', type: 'uuid' })
  serviceId: string;

  @Column({ type: 'varchar', length: 10 })
  type: ActionType;

  @Column({ type: 'varchar', length: 10 })
  status: ActionStatus;

  /** Power state before the action, restored if it fails and the provider cannot say better. */
  @Column({ name: 'from_state', type: 'varchar', length: 10 })
  fromState: PowerState;

  /** The provider's task handle, once it accepted the request (null: not sent yet). */
  @Column({ name: 'provider_task', type: 'varchar', length: 200, nullable: true })
  providerTask: string | null;

  @Column({ name: 'error_code', type: 'varchar', length: 64, nullable: true })
  errorCode: string | null;

  @Column({ name: 'error_message', type: 'varchar', length: 500, nullable: true })
  errorMessage: string | null;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}

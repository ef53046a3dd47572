import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PowerState } from '../service.types';

/** The API's view of a VPS: what the compute provider last reported or was asked to do. */
@Entity('vps_instances')
export class VpsInstance {
  @PrimaryColumn({ name: 'service_id', type: 'uuid' })
  serviceId: string;

  @Column({ name: 'power_state', type: 'varchar', length: 10 })
  powerState: PowerState;

  @Column({ type: 'varchar', length: 32 })
  region: string;

  @Column({ type: 'varchar', length: 15, nullable: true })
  ipv4: string | null;

  @Column({ type: 'varchar', length: 39, nullable: true })
  ipv6: string | null;

  /** The hypervisor's own id of the machine (Proxmox vmid, libvirt domain, OpenStack server id). */
  @Column({ name: 'provider_ref', type: 'varchar', length: 200, nullable: true })
  providerRef: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

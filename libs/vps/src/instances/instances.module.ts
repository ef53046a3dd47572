import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { ServicesModule } from '@app/services';
import { SshKeysModule } from '@app/ssh-keys';
import { ComputeModule } from '../compute/compute.module';
import { HostKeysModule } from '../host-keys/host-keys.module';
import { HostsModule } from '../hosts/hosts.module';
import { ImageCatalogueModule } from '../images/image-catalogue.module';
import { GuestSetup } from './guest-setup';
import { NetworkAllocator } from './network/network-allocator';
import { NetworkLeasesRepository } from './network/network-leases.repository';
import { PowerStateReconcileJob } from './power-state/power-state-reconcile.job';
import { PowerStateSync } from './power-state/power-state-sync';
import { MachineProvisioning } from './provisioning/machine-provisioning';
import { ProvisioningOutcome } from './provisioning/provisioning-outcome';
import { ProvisioningResumeJob } from './provisioning/provisioning-resume.job';
import { VpsProvisioningJob } from './provisioning/vps-provisioning.job';
import { VpsProvisioningRepository } from './provisioning/vps-provisioning.repository';
import { HypervisorOrphansRepository } from './reconcile/hypervisor-orphans.repository';
import { MachineReconciler } from './reconcile/machine-reconciler';
import { MissingMachines } from './reconcile/missing-machines';
import { OrphanClaims } from './reconcile/orphan-claims';
import { ServiceMail } from './service-mail';
import { VpsInstancesRepository } from './vps-instances.repository';
import { VpsOwnership } from './vps-ownership';
import { VpsStates } from './vps-states';

/** What the rooms above read and write of a VPS's machine. */
const SHARED = [
  VpsInstancesRepository,
  VpsStates,
  VpsOwnership,
  ServiceMail,
  GuestSetup,
  NetworkAllocator,
  NetworkLeasesRepository,
  PowerStateSync,
  MachineProvisioning,
  VpsProvisioningRepository,
  MachineReconciler,
];

/**
 * A VPS's machine as the account sees it: its record and power state, how it is provisioned,
 * its addresses, and the reconciliation that keeps the record and the hypervisor agreeing.
 */
@Module({
  imports: [ServicesModule, SshKeysModule, AccountsModule, ComputeModule, HostsModule, ImageCatalogueModule, HostKeysModule],
  providers: [
    ...SHARED,
    PowerStateReconcileJob,
    VpsProvisioningJob,
    ProvisioningOutcome,
    ProvisioningResumeJob,
    HypervisorOrphansRepository,
    OrphanClaims,
    MissingMachines,
  ],
  exports: [...SHARED, HostKeysModule],
})
export class InstancesModule {}

import { Module } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { AccountsModule } from '@app/accounts';
import { ServicesModule } from '@app/services';
import { SshKeysModule } from '@app/ssh-keys';
import { ActionStart } from './actions/action-start';
import { BACKUP_PROVIDERS, BackupsController } from './backups/backups.providers';
import { ComputeProvider } from './compute/compute-provider';
import { DeploymentIdentity } from './compute/deployment-identity';
import { DeploymentIdentityRepository } from './compute/deployment-identity.repository';
import { LibvirtComputeProvider } from './compute/libvirt/libvirt-compute.provider';
import { LibvirtImageStore } from './compute/libvirt/libvirt-image-store';
import { SimulatedComputeProvider } from './compute/simulated-compute.provider';
import { SimulatedVncServers } from './compute/simulated-vnc/simulated-vnc-servers';
import { SimulatorTasksRepository } from './compute/simulator-tasks.repository';
import { ConsoleConnections } from './console/console-connections';
import { ConsoleIssuer } from './console/console-issuer';
import { RootPasswordService } from './rescue/root-password/root-password.service';
import { AccessMail } from './rescue/access-mail';
import { ServiceMail } from './instances/service-mail';
import { RescueAction, UnrescueAction } from './rescue/rescue-actions';
import { RescueExpiryJob } from './rescue/rescue-expiry.job';
import { RescueStart } from './rescue/rescue-start';
import { RescueService } from './rescue/rescue.service';
import { VpsRescuesRepository } from './rescue/vps-rescues.repository';
import { ConsoleProxy } from './console/console-proxy';
import { ConsoleRechecks } from './console/console-rechecks';
import { ConsoleSessionsRepository } from './console/console-sessions.repository';
import { ConsoleService } from './console/console.service';
import { GuestSetup } from './instances/guest-setup';
import { HostsRepository } from './hosts/hosts.repository';
import { HOSTS_PROVIDERS } from './fleet/hosts.providers';
import { ImageAddCommand } from './images/cli/image-add.command';
import { ImageRemoveCommand } from './images/cli/image-remove.command';
import { ImageStore, SimulatedImageStore } from './compute/image-store';
import { ImagesDemoSeeder } from './images/images.demo';
import { ImagesRepository } from './images/images.repository';
import { ImagesService } from './images/images.service';
import { SnapshotAction } from './backups/snapshots/snapshot-action';
import { SnapshotImages } from './backups/snapshots/snapshot-images';
import { InstanceActionHandlers } from './actions/instance-action-handlers';
import { InstanceActionHistory } from './actions/instance-action-history';
import { InstanceActionOutcome } from './actions/instance-action-outcome';
import { InstanceActionRunner } from './actions/instance-action-runner';
import { InstanceActionJob } from './actions/instance-action.job';
import { InstanceActionsRepository } from './actions/instance-actions.repository';
import { InstanceActionsService } from './actions/instance-actions.service';
import { InstanceController } from './instance.controller';
import { VpsKind } from './service-kind/vps.kind';
import { VpsTermination } from './service-kind/vps-termination';
import { MachineProvisioning } from './instances/provisioning/machine-provisioning';
import { NetworkAllocator } from './instances/network/network-allocator';
import { NetworkLeasesRepository } from './instances/network/network-leases.repository';
import { PowerActions } from './actions/power-actions';
import { PowerStateReconcileJob } from './instances/power-state/power-state-reconcile.job';
import { PowerStateSync } from './instances/power-state/power-state-sync';
import { ProvisioningOutcome } from './instances/provisioning/provisioning-outcome';
import { ProvisioningResumeJob } from './instances/provisioning/provisioning-resume.job';
import { RebuildAction } from './actions/rebuild-action';
import { VpsProvisioningJob } from './instances/provisioning/vps-provisioning.job';
import { VpsProvisioningRepository } from './instances/provisioning/vps-provisioning.repository';
import { HypervisorOrphansRepository } from './instances/reconcile/hypervisor-orphans.repository';
import { MachineReconciler } from './instances/reconcile/machine-reconciler';
import { MissingMachines } from './instances/reconcile/missing-machines';
import { OrphanClaims } from './instances/reconcile/orphan-claims';
import { VpsDemoSeeder } from './vps.demo';
import { VpsGauges } from './fleet/vps-gauges';
import { VpsInstancesRepository } from './instances/vps-instances.repository';
import { VpsOwnership } from './instances/vps-ownership';
import { VpsStates } from './instances/vps-states';

/** VPS instances: power actions, consoles, images, networks, provisioning and reconciliation, behind the compute port. */
@Module({
  imports: [ServicesModule, SshKeysModule, AccountsModule],
  controllers: [InstanceController, BackupsController],
  providers: [
    VpsKind,
    VpsTermination,
    VpsStates,
    VpsOwnership,
    VpsGauges,
    VpsInstancesRepository,
    PowerStateSync,
    PowerStateReconcileJob,
    MachineProvisioning,
    VpsProvisioningRepository,
    VpsProvisioningJob,
    ProvisioningOutcome,
    ProvisioningResumeJob,
    HypervisorOrphansRepository,
    DeploymentIdentityRepository,
    DeploymentIdentity,
    OrphanClaims,
    MissingMachines,
    MachineReconciler,
    InstanceActionsRepository,
    InstanceActionsService,
    InstanceActionHistory,
    ActionStart,
    InstanceActionRunner,
    InstanceActionOutcome,
    InstanceActionJob,
    InstanceActionHandlers,
    PowerActions,
    RebuildAction,
    ConsoleService,
    ConsoleIssuer,
    RootPasswordService,
    RescueService,
    RescueStart,
    RescueExpiryJob,
    RescueAction,
    UnrescueAction,
    AccessMail,
    ServiceMail,
    VpsRescuesRepository,
    ConsoleSessionsRepository,
    ConsoleConnections,
    ConsoleProxy,
    ConsoleRechecks,
    SimulatedVncServers,
    SimulatorTasksRepository,
    ImagesRepository,
    ImagesService,
    SnapshotImages,
    SnapshotAction,
    GuestSetup,
    NetworkAllocator,
    NetworkLeasesRepository,
    {
      provide: ImageStore,
      inject: [AppConfig, HostsRepository],
      useFactory: (config: AppConfig, hosts: HostsRepository): ImageStore =>
        config.computeProvider === 'libvirt' ? new LibvirtImageStore(config, hosts) : new SimulatedImageStore(),
    },
    // Adapters: the simulator by default; COMPUTE_PROVIDER=libvirt drives real KVM/QEMU hosts.
    {
      provide: ComputeProvider,
      inject: [AppConfig, SimulatorTasksRepository, SimulatedVncServers, DeploymentIdentity, HostsRepository],
      useFactory: (
        config: AppConfig,
        tasks: SimulatorTasksRepository,
        displays: SimulatedVncServers,
        identity: DeploymentIdentity,
        hosts: HostsRepository,
      ) =>
        config.computeProvider === 'libvirt'
          ? new LibvirtComputeProvider(config, identity, hosts)
          : new SimulatedComputeProvider(tasks, config, displays),
    },
    ImageAddCommand,
    ImageRemoveCommand,
    ImagesDemoSeeder,
    VpsDemoSeeder,
    ...BACKUP_PROVIDERS,
    ...HOSTS_PROVIDERS,
  ],
  exports: [VpsGauges, ImagesService, VpsStates],
})
export class VpsModule {}

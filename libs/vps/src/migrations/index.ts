import { InstanceActionNotices1764000001600 } from './1764000001600-instance-action-notices';
import { ConsoleConnections1764000001610 } from './1764000001610-console-connections';
import { ConsoleCredentials1764000002100 } from './1764000002100-console-credentials';
import { ImagesDisksNetworks1764000002200 } from './1764000002200-images-disks-networks';
import { MachineProvisioning1764000002500 } from './1764000002500-machine-provisioning';
import { DeploymentIdentity1764000002760 } from './1764000002760-deployment-identity';
import { ImageSnapshots1764000002900 } from './1764000002900-image-snapshots';
import { VpsBackups1764000003200 } from './1764000003200-vps-backups';
import { Hosts1764000003400 } from './1764000003400-hosts';
import { RescueMode1764000003300 } from './1764000003300-rescue-mode';
import { VpsMoves1764000003500 } from './1764000003500-vps-moves';
import { VpsEvacuations1764000003550 } from './1764000003550-vps-evacuations';
import { VpsBackupOrphans1764000003600 } from './1764000003600-vps-backup-orphans';
import { RescuePasswordHash1764000003700 } from './1764000003700-rescue-password-hash';
import { ImageDeleting1764000003800 } from './1764000003800-image-deleting';
import { VpsRelocations1764000003900 } from './1764000003900-vps-relocations';
import { LiveMoves1764000004900 } from './1764000004900-live-moves';
import { EvacuationFromDisk1764000005000 } from './1764000005000-evacuation-from-disk';
import { CanonicalIpv61764000004000 } from './1764000004000-canonical-ipv6';
import { Firewalls1764000004100 } from './1764000004100-firewalls';
import { Volumes1764000004200 } from './1764000004200-volumes';
import { VpsAddressPtrs1764000004400 } from './1764000004400-vps-address-ptrs';
import { ActionProgress1764000004620 } from './1764000004620-action-progress';
import { OperatorErrorDetail1764000004630 } from './1764000004630-operator-error-detail';
import { VpsHostKeys1764000004700 } from './1764000004700-vps-host-keys';

/** The VPS tables made after services' first migration (vps_instances, instance_actions and console_sessions are made there). */
export const vpsMigrations = [
  InstanceActionNotices1764000001600,
  ConsoleConnections1764000001610,
  ConsoleCredentials1764000002100,
  ImagesDisksNetworks1764000002200,
  MachineProvisioning1764000002500,
  DeploymentIdentity1764000002760,
  ImageSnapshots1764000002900,
  VpsBackups1764000003200,
  Hosts1764000003400,
  RescueMode1764000003300,
  VpsMoves1764000003500,
  VpsEvacuations1764000003550,
  VpsBackupOrphans1764000003600,
  RescuePasswordHash1764000003700,
  ImageDeleting1764000003800,
  VpsRelocations1764000003900,
  CanonicalIpv61764000004000,
  Firewalls1764000004100,
  Volumes1764000004200,
  VpsAddressPtrs1764000004400,
  ActionProgress1764000004620,
  OperatorErrorDetail1764000004630,
  VpsHostKeys1764000004700,
  LiveMoves1764000004900,
  EvacuationFromDisk1764000005000,
];

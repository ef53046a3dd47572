import { CreateServices1764000000400 } from './1764000000400-create-services';
import { InstanceActionNotices1764000001600 } from './1764000001600-instance-action-notices';
import { ConsoleConnections1764000001610 } from './1764000001610-console-connections';
import { ConsoleCredentials1764000002100 } from './1764000002100-console-credentials';
import { ImagesDisksNetworks1764000002200 } from './1764000002200-images-disks-networks';
import { ObjectStorageUsers1764000002310 } from './1764000002310-object-storage-users';
import { MachineProvisioning1764000002500 } from './1764000002500-machine-provisioning';
import { GatewayMadeSecrets1764000002730 } from './1764000002730-gateway-made-secrets';
import { DeploymentIdentity1764000002760 } from './1764000002760-deployment-identity';

export const servicesMigrations = [
  CreateServices1764000000400,
  InstanceActionNotices1764000001600,
  ConsoleConnections1764000001610,
  ConsoleCredentials1764000002100,
  ImagesDisksNetworks1764000002200,
  ObjectStorageUsers1764000002310,
  MachineProvisioning1764000002500,
  GatewayMadeSecrets1764000002730,
  DeploymentIdentity1764000002760,
];

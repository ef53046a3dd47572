import type { Readable } from 'node:stream';
import type { SshHostKeyPair } from '../host-keys/ssh-host-key';
import type { HostTarget } from '../hosts/host.entity';
import type { ActionType, PowerState, SnapshotConsistency } from '../vps.types';
import type { GuestFirewall } from './guest-firewalls';
import type { VolumeSource } from './volumes/volume-backend';

/** Which machine: our service id, and the hypervisor's own id when provisioning recorded one. */
export interface InstanceRef {
  serviceId: string;
  providerRef: string | null;
  region: string;
  /** The service's name, where the caller has it: for display only (the simulator's console screen). */
  name?: string;
  /** The host placement chose; null or absent: the region's hypervisor of the configuration. */
  host?: HostTarget | null;
}

/** The machine of a recorded VPS (a region unknown to the record is the empty string). */
export function instanceRef(
  serviceId: string,
  instance: { providerRef: string | null; region: string | null; host?: HostTarget | null },
): InstanceRef {
  return { serviceId, providerRef: instance.providerRef, region: instance.region ?? '', host: instance.host ?? null };
}

export interface ActionNote {
  code: string;
  message: string;
}

/** What a finished snapshot made: the image's bytes on the hypervisor, and how consistent its disk is. */
export interface ActionResult {
  sizeBytes: number;
  consistency: SnapshotConsistency;
}

/**
 * Where a task stands while it runs: `progress` 0-100 (a coarse estimate; the action never shows
 * less than it showed before) and `step`, a short sentence of what it does now ("copying the disk").
 */
export interface TaskStep {
  progress: number;
  step: string;
}

/** Told each step of a long call as it begins (an action's begin): best effort, it never fails the call. */
export type StepReporter = (progress: number, step: string) => Promise<void>;

/** For calls outside an action (provisioning, a relocation): nobody follows their steps. */
export const NO_STEPS: StepReporter = () => Promise.resolve();

/**
 * `notice` on success: the hypervisor reached the target another way than asked (e.g. a forced
 * power-off); `result`: what a snapshot made; while running, the step it is at, when the provider can tell.
 */
export type TaskStatus =
  | ({ state: 'running' } & Partial<TaskStep>)
  | { state: 'succeeded'; notice?: ActionNote; result?: ActionResult }
  | { state: 'failed'; error: ActionNote; operatorDetail?: string };

export interface AddressLease {
  address: string;
  prefix: number;
  gateway: string;
}

/** How the guest is reached: a forwarded loopback port (QEMU user networking) or a bridge with public addresses. */
export type GuestNetwork =
  | { mode: 'user'; mac: string; sshHost: string; sshPort: number }
  | { mode: 'bridge'; mac: string; bridge: string; ipv4: AddressLease; ipv6: AddressLease | null; dns: string[] };

/** What cloud-init reads from the seed (NoCloud). */
export interface GuestSeed {
  /** New on every rebuild: cloud-init runs its first-boot modules again. */
  instanceId: string;
  hostname: string;
  /** OpenSSH public key lines for root. */
  sshKeys: string[];
  /** A rescue system's root password, as its SHA-512-crypt hash; never the password itself. */
  rootPasswordHash?: string;
  /** The SSH host keys the system answers with; none: cloud-init makes its own. Added when the machine is made, never recorded in an action. */
  hostKeys?: SshHostKeyPair[];
}

/** The root disk: a copy-on-write disk of `diskGb` on the image, and the seed cloud-init reads. */
export interface GuestBoot {
  imageId: string;
  imageFormat: 'qcow2' | 'raw';
  diskGb: number;
  seed: GuestSeed;
}

/** What a new machine gets: resources from the product's specs, and (with an image) its disk and network. */
export interface MachineSpec {
  vcpus: number;
  memoryMb: number;
  powerOn: boolean;
  boot?: GuestBoot;
  network?: GuestNetwork;
}

/** What a restore makes again if the hypervisor lost it: the install's seed, and a definition (null sizes: none on record). */
export type RestoredMachine = { seed: GuestSeed; network: GuestNetwork | null; vcpus: number | null; memoryMb: number | null };

/** A machine's root disk being read out for a backup: a standalone qcow2, as a stream. */
export interface DiskExport {
  stream: Readable;
  consistency: SnapshotConsistency;
  /** Removes the copy the export made on the hypervisor; safe to call twice. */
  release(): Promise<void>;
}

/** A machine the provider made or adopted: its id on the hypervisor and the state it is in. */
export interface MachineRecord {
  providerRef: string;
  /** null: the provider cannot tell; the provisioner's choice stands. */
  powerState: PowerState | null;
}

/** The product's names on one hypervisor (`svc-` prefix), as reconciliation compares them with the database. */
export interface HypervisorInventory {
  /** How the provider names the hypervisor (hypervisorOf gives the same for a region). */
  hypervisor: string;
  /** Domain name -> power state. */
  domains: Map<string, PowerState>;
  volumes: string[];
}

/**
 * Whose a domain is by the deployment mark it carries: this deployment's, another's
 * sharing the hypervisor, or none (defined before marks, or by hand).
 */
export type MachineMark = 'ours' | 'foreign' | 'none';

/** Every domain and volume of a VPS is named with this prefix; reconciliation never touches another name. */
export const MACHINE_PREFIX = 'svc-';

/** Where the console proxy connects for a session, and what the client authenticates with. */
export interface ConsoleTarget {
  protocol: 'vnc';
  host: string;
  port: number;
  /** The VNC password (Proxmox: the vncproxy ticket) handed to the client. */
  password: string;
  /** Anything else the proxy needs to open the upstream connection (Proxmox ticket, libvirt URI...). */
  upstream?: Record<string, string>;
}

/**
 * An adapter refuses an operation for good (`retryable: false`: the action fails with `code`)
 * or cannot reach the hypervisor now (`retryable: true`: the runner tries again with backoff).
 */
export class ComputeProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
    /**
     * What the hypervisor itself said (virsh's words: host paths, QEMU's reason), for operators only:
     * their command line and an action's `error_detail`; never a customer's answer, notification or log entry.
     */
    readonly operatorDetail?: string,
  ) {
    super(message);
  }

  /** The same error, carrying what the hypervisor said (one line, at most 1000 characters). */
  withOperatorDetail(detail: string): ComputeProviderError {
    return new ComputeProviderError(this.code, this.message, this.retryable, oneLine(detail).slice(0, 1000));
  }
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();

/**
 * The port to the hypervisor (docs/compute-provider.md). Power operations are asynchronous on
 * every real backend (a Proxmox UPID, an OpenStack 202 and a status to poll, a libvirt job), so the
 * port is "ask, then poll": the runner persists the task handle and polls until the task ends.
 */
export abstract class ComputeProvider {
  /**
   * Begins a power operation and returns the provider's task handle. Must be idempotent per `idempotencyKey`.
   * Here and in the other calls that begin a task, `steps` is told each step as it begins (the action shows it).
   */
  abstract powerAction(instance: InstanceRef, operation: ActionType, idempotencyKey: string, steps?: StepReporter): Promise<string>;

  /** Where a task begun by powerAction stands. */
  abstract taskStatus(instance: InstanceRef, taskId: string): Promise<TaskStatus>;

  /** The machine's power state as the hypervisor sees it; null when it cannot tell. */
  abstract powerState(instance: InstanceRef): Promise<PowerState | null>;

  /** Opens a console endpoint on the hypervisor for one short session. */
  abstract openConsole(instance: InstanceRef): Promise<ConsoleTarget>;

  /** How long to wait before (next) asking about a task of this operation. */
  abstract pollIntervalMs(operation: ActionType): number;

  /**
   * True when machines change state outside the API (a guest shutting itself down, an operator's
   * command): reads then ask the hypervisor instead of trusting the last recorded state.
   */
  readonly observesExternalChanges: boolean = false;

  /**
   * Makes the hypervisor enforce exactly these firewalls on the VPS's public interface, live when it
   * runs and kept for its next start (an empty list: everything passes). Idempotent; the default
   * (the simulator, and machines without a bridge) has nothing to enforce.
   */
  applyFirewalls(_instance: InstanceRef, _network: GuestNetwork | null, _firewalls: GuestFirewall[]): Promise<void> {
    return Promise.resolve();
  }

  /** Creates the machine of a new VPS; null when the provider has nothing to create (the simulator). */
  createMachine(_instance: InstanceRef, _spec: MachineSpec): Promise<MachineRecord | null> {
    return Promise.resolve(null);
  }

  /** Takes over an existing machine for a new VPS (never one another deployment made); the default trusts the reference as given. */
  adoptMachine(_instance: InstanceRef, providerRef: string): Promise<MachineRecord | null> {
    return Promise.resolve({ providerRef, powerState: null });
  }

  /**
   * The network of a new machine: an adapter whose machines need an address or a forwarded port
   * takes a lease with `lease` (a row of the provisioning transaction); the default needs none.
   */
  networkFor(_lease: () => Promise<GuestNetwork>): Promise<GuestNetwork | null> {
    return Promise.resolve(null);
  }

  /**
   * Begins a rebuild: the root disk is made again from the image, with a new seed, and the machine
   * boots from it. Returns a task handle polled with taskStatus, like powerAction (same key rules).
   */
  rebuildMachine(
    _instance: InstanceRef,
    boot: GuestBoot,
    network: GuestNetwork | null,
    idempotencyKey: string,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    return this.powerAction(_instance, 'rebuild', idempotencyKey, steps);
  }

  /**
   * Begins a snapshot: a standalone copy of the machine's root disk (no backing file) that becomes
   * the image `imageId`'s disk, taken live when the machine runs. Its task ends with a `result`.
   * Returns a task handle polled with taskStatus (same key rules as powerAction).
   */
  snapshotMachine(_instance: InstanceRef, _imageId: string, _idempotencyKey: string, _steps: StepReporter = NO_STEPS): Promise<string> {
    return Promise.reject(new ComputeProviderError('unsupported', 'This hypervisor cannot take snapshots.'));
  }

  /**
   * Sets root's password in the running guest (QEMU guest agent). Synchronous: it has
   * happened when this resolves. Refuses with `not_running` for a machine that is not running and
   * `guest_agent_unavailable` when the guest's agent does not answer. The password never appears
   * in an error's message or a log line.
   */
  setRootPassword(_instance: InstanceRef, _password: string): Promise<void> {
    return Promise.reject(new ComputeProviderError('unsupported', 'This hypervisor cannot set a password in the guest.'));
  }

  /**
   * A copy of the machine's root disk (live when it runs, like a snapshot), read as a stream of
   * qcow2 bytes for a backup. `exportId` names the copy, so releaseExport finds what a dead process left.
   */
  exportDisk(_instance: InstanceRef, _exportId: string): Promise<DiskExport> {
    return Promise.reject(new ComputeProviderError('unsupported', 'This hypervisor cannot back up disks.'));
  }

  /** Removes what exportDisk made for `exportId` (after a process died mid-backup); nothing there is fine. */
  releaseExport(_instance: InstanceRef, _exportId: string): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Begins a restore: the machine is powered off, its root disk replaced by the qcow2 bytes `open`
   * streams (`sizeBytes` of them), and it boots. Works without the old disk, and with `machine`
   * without its seed or definition too. Returns a task handle polled with taskStatus (as powerAction's).
   */
  restoreMachine(
    _instance: InstanceRef,
    _open: () => Promise<Readable>,
    _sizeBytes: number,
    _idempotencyKey: string,
    _machine?: RestoredMachine,
    _steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    return Promise.reject(new ComputeProviderError('unsupported', 'This hypervisor cannot restore disks.'));
  }

  /**
   * Begins a rescue: the machine boots `rescue` (the rescue image on a disk of its own,
   * with its seed) and keeps its root disk as a second disk (vdb), unmounted. Power actions then act
   * on the rescue system until unrescueMachine. A task handle, like powerAction (same key rules).
   */
  rescueMachine(
    instance: InstanceRef,
    _rescue: GuestBoot,
    _network: GuestNetwork | null,
    idempotencyKey: string,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    return this.powerAction(instance, 'rescue', idempotencyKey, steps);
  }

  /** Ends a rescue: the machine boots its own disk and seed again, and the rescue disk and seed are removed. A task handle. */
  unrescueMachine(
    instance: InstanceRef,
    _network: GuestNetwork | null,
    idempotencyKey: string,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    return this.powerAction(instance, 'unrescue', idempotencyKey, steps);
  }

  /**
   * Attaches a volume (VolumeBackend.diskSource gives `source`): hot-plugged when the machine runs,
   * and kept in its definition for every later start and rebuild. The guest finds it at
   * volumeDevicePath(volumeId). Idempotent; the default (the simulator) keeps nothing.
   */
  attachVolume(_instance: InstanceRef, _volumeId: string, _source: VolumeSource): Promise<void> {
    return Promise.resolve();
  }

  /** Detaches a volume, live when the machine runs (`detach_refused` when the guest keeps it); one not attached is fine. */
  detachVolume(_instance: InstanceRef, _volumeId: string): Promise<void> {
    return Promise.resolve();
  }

  /** Tells a running machine that an attached volume grew to `sizeBytes` (after VolumeBackend.resize), so the guest sees it now. */
  resizeVolume(_instance: InstanceRef, _volumeId: string, _sizeBytes: number): Promise<void> {
    return Promise.resolve();
  }

  /** Powers off and deletes the machine of a terminated VPS, with its root disk and seed; another deployment's machine stays. */
  destroyMachine(_instance: InstanceRef): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Whether new VPSes get a machine, made by the durable provisioning job; false for the
   * simulator, whose VPSes live in the database alone.
   */
  readonly makesMachines: boolean = false;

  /** Whether the machine is there: false only when the hypervisor says it is not, null when it cannot tell. */
  machineExists(_instance: InstanceRef): Promise<boolean | null> {
    return Promise.resolve(null);
  }

  /** What each hypervisor that answers holds under MACHINE_PREFIX; one that does not answer is left out. */
  inventory(): Promise<HypervisorInventory[]> {
    return Promise.resolve([]);
  }

  /** The hypervisor (as inventory names it) that serves a VPS: its host's, or its region's. */
  hypervisorOf(instance: InstanceRef): string {
    return instance.region;
  }

  /** The deployment mark of a domain inventory listed (not_found: it is gone meanwhile). */
  machineMark(_hypervisor: string, _domain: string): Promise<MachineMark> {
    return Promise.resolve('none');
  }

  /**
   * Removes a domain (powered off first) or a volume inventory reported; refuses a name without
   * MACHINE_PREFIX, and a domain marked by another deployment.
   */
  removeOrphan(_hypervisor: string, _kind: 'domain' | 'volume', _name: string): Promise<void> {
    return Promise.resolve();
  }

  /** The power states of many machines at once, by service id; machines it cannot tell about are left out. */
  powerStates(_instances: InstanceRef[]): Promise<Map<string, PowerState>> {
    return Promise.resolve(new Map());
  }
}

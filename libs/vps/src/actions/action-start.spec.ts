import { EntityManager } from 'typeorm';
import { Principal, Problem } from '@app/core';
import type { ActionInput } from './action-handler';
import { refusedInRescue } from '../rescue/rescue-actions';
import { ActionStart } from './action-start';
import { RestoreAction } from '../backups/restore-action';
import { SnapshotAction } from '../backups/snapshots/snapshot-action';
import { InstanceActionHandlers } from './instance-action-handlers';
import { PowerActions } from './power-actions';
import { RebuildAction } from './rebuild-action';
import type { ActionType } from '../vps.types';

const m = {} as EntityManager;
const caller = { accountId: 'acc' } as Principal;
const service = { id: 'svc', name: 'Web 1', status: 'active', powerState: 'running', host: null } as never;

/** ActionStart with the handlers of the VPS area, over fakes that log what they are asked, in order. */
function start(opts: { inRescue?: boolean; running?: boolean; badImage?: boolean } = {}) {
  const calls: string[] = [];
  const inserted: unknown[] = [];
  const log =
    <T>(name: string, result?: T) =>
    (...args: unknown[]) => {
      calls.push(name);
      if (name === 'insertRunning') inserted.push(args[4]);
      return Promise.resolve(result);
    };
  const actions = { hasRunning: log('hasRunning', !!opts.running), insertRunning: log('insertRunning', { id: 'act' }) };
  const instances = {
    guestOf: log('guestOf', { diskGb: 20, network: { ip: '10.0.0.5' }, imageId: 'img-old' }),
    setPowerState: log('setPowerState'),
    setImage: log('setImage'),
  };
  const guests = {
    plan: opts.badImage
      ? () => Promise.reject(Problem.invalidInput('No such image.'))
      : log('guests.plan', {
          image: { id: 'img-new', slug: 'debian-12', format: 'qcow2' },
          diskGb: 20,
          sshKeys: ['ssh-ed25519 A'],
          sshKeyIds: ['key'],
        }),
  };
  const snapshots = { reserve: log('snapshots.reserve', { id: 'snap', slug: 'snap-slug', name: 'before upgrade' }) };
  const restored = { plan: log('restoredMachines.plan', { seed: { instanceId: 'iid-svc' } }) };
  const rescues = { find: log('rescues.find', opts.inRescue ? { service_id: 'svc' } : null) };
  const activity = {
    record: (_m: unknown, entry: { details: unknown }) => (calls.push('activity'), (details.push(entry.details), Promise.resolve())),
  };
  const details: unknown[] = [];
  const handlers = new InstanceActionHandlers();
  const compute = {} as never;
  for (const handler of [
    new PowerActions(handlers, compute),
    new RebuildAction(handlers, compute, instances as never, guests as never, { ensure: log('hostKeys.ensure') } as never),
    new SnapshotAction(handlers, compute, snapshots as never, instances as never),
    new RestoreAction(handlers, compute, {} as never, restored as never),
  ])
    handler.onModuleInit();
  handlers.refuseWhen(refusedInRescue(rescues as never));
  const actionStart = new ActionStart(actions as never, instances as never, activity as never, handlers);
  const begin = (type: ActionType, input?: ActionInput) => actionStart.begin(m, caller, service, type, input);
  return { begin, calls, inserted, details };
}

describe('ActionStart with the registered handlers', () => {
  it('records a power action without params', async () => {
    const s = start();
    await s.begin('stop');
    expect(s.calls).toEqual(['hasRunning', 'insertRunning', 'setPowerState', 'activity']);
    expect(s.inserted).toEqual([null]);
    expect(s.details).toEqual([{ actionId: 'act' }]);
  });

  it("plans a rebuild's guest before the machine's state, and records its image once the action is", async () => {
    const s = start();
    await s.begin('rebuild', { rebuild: { image: 'debian-12', sshKeyIds: ['key'] } });
    expect(s.calls).toEqual([
      'guestOf',
      'guests.plan',
      'rescues.find',
      'hasRunning',
      'insertRunning',
      'setPowerState',
      'setImage',
      'hostKeys.ensure',
      'activity',
    ]);
    expect(s.inserted).toEqual([
      {
        boot: {
          imageId: 'img-new',
          imageFormat: 'qcow2',
          diskGb: 20,
          seed: { instanceId: '', hostname: 'web-1', sshKeys: ['ssh-ed25519 A'] },
        },
        network: { ip: '10.0.0.5' },
      },
    ]);
    expect(s.details).toEqual([{ actionId: 'act', image: 'debian-12', sshKeyIds: ['key'] }]);
  });

  it("answers a rebuild's unknown image before its rescue", async () => {
    const s = start({ inRescue: true, badImage: true });
    await expect(s.begin('rebuild', { rebuild: { image: 'nope' } })).rejects.toMatchObject({ status: 400 });
    expect(s.calls).toEqual(['guestOf']);
  });

  it('refuses a rebuild, snapshot or restore in rescue, naming the type, and reserves nothing', async () => {
    for (const [type, input] of [
      ['rebuild', { rebuild: { image: 'debian-12' } }],
      ['snapshot', { snapshot: { name: 'x' } }],
      ['restore', { restore: { backupId: 'b', key: 'k', sizeBytes: 1 } }],
    ] as [ActionType, ActionInput][]) {
      const s = start({ inRescue: true });
      await expect(s.begin(type, input)).rejects.toMatchObject({
        status: 409,
        detail: `The instance is in rescue mode; unrescue it before a ${type}.`,
      });
      expect(s.calls).not.toContain('snapshots.reserve');
      expect(s.calls).not.toContain('insertRunning');
    }
    const s = start({ inRescue: true });
    await s.begin('reboot');
    expect(s.calls).not.toContain('rescues.find');
  });

  it('reserves a snapshot only once the machine may take it', async () => {
    const refused = start({ running: true });
    await expect(refused.begin('snapshot', { snapshot: { name: 'before upgrade' } })).rejects.toMatchObject({ status: 409 });
    expect(refused.calls).toEqual(['rescues.find', 'hasRunning']);

    const s = start();
    await s.begin('snapshot', { snapshot: { name: 'before upgrade' } });
    expect(s.calls).toEqual(['rescues.find', 'hasRunning', 'guestOf', 'snapshots.reserve', 'insertRunning', 'setPowerState', 'activity']);
    expect(s.inserted).toEqual([{ snapshot: { imageId: 'snap' } }]);
    expect(s.details).toEqual([{ actionId: 'act', imageId: 'snap', slug: 'snap-slug', name: 'before upgrade' }]);
  });

  it('records a restore with the machine it would make again', async () => {
    const s = start();
    await s.begin('restore', { restore: { backupId: 'b', key: 'k', sizeBytes: 1 } });
    expect(s.calls).toEqual(['rescues.find', 'hasRunning', 'restoredMachines.plan', 'insertRunning', 'setPowerState', 'activity']);
    expect(s.inserted).toEqual([{ restore: { backupId: 'b', key: 'k', sizeBytes: 1, machine: { seed: { instanceId: 'iid-svc' } } } }]);
    expect(s.details).toEqual([{ actionId: 'act', backupId: 'b' }]);
  });
});

import type { ServiceStatus } from '@app/services';
import { ActionType, PowerState } from '../../vps.types';
import { isTransitional, planAction, targetOf } from './power-state-machine';

const idle = (powerState: PowerState, serviceStatus: ServiceStatus = 'active') => ({ serviceStatus, powerState, actionRunning: false });

describe('power state machine', () => {
  it.each([
    ['start', 'stopped', 'starting', 'running'],
    ['stop', 'running', 'stopping', 'stopped'],
    ['reboot', 'running', 'starting', 'running'],
  ] as const)('%s from %s passes through %s to %s', (type, from, transitional, target) => {
    expect(planAction(idle(from), type)).toEqual({ ok: true, transitional, target });
    expect(targetOf(type, from)).toBe(target);
  });

  it.each(['running', 'stopped'] as const)('snapshots a %s machine without changing its state', (state) => {
    expect(planAction(idle(state), 'snapshot')).toEqual({ ok: true, transitional: state, target: state });
    expect(targetOf('snapshot', state)).toBe(state);
  });

  it.each([
    ['start', 'running'],
    ['stop', 'stopped'],
    ['reboot', 'stopped'],
  ] as const)('refuses %s when %s (invalid_state)', (type, state) => {
    expect(planAction(idle(state), type)).toMatchObject({ ok: false, code: 'invalid_state' });
  });

  it.each(['start', 'stop', 'reboot', 'rebuild', 'snapshot', 'rescue', 'unrescue'] as const)(
    'refuses %s while the machine is being made, and when it is in error',
    (type) => {
      expect(planAction(idle('provisioning'), type)).toMatchObject({ ok: false, code: 'action_in_progress' });
      expect(planAction(idle('error'), type)).toMatchObject({
        ok: false,
        code: 'invalid_state',
        detail: expect.stringContaining('support'),
      });
    },
  );

  it('restores a machine in error: the way back from a machine the hypervisor lost', () => {
    expect(planAction(idle('error'), 'restore')).toEqual({ ok: true, transitional: 'starting', target: 'running' });
    expect(targetOf('restore', 'error')).toBe('running');
    expect(planAction({ ...idle('error'), actionRunning: true }, 'restore')).toMatchObject({ ok: false, code: 'action_in_progress' });
  });

  it.each(['pending', 'suspended', 'cancelled', 'terminated'] as const)('refuses every action on a %s service', (status) => {
    for (const type of ['start', 'stop', 'reboot'] as ActionType[]) {
      const plan = planAction(idle(type === 'start' ? 'stopped' : 'running', status), type);
      expect(plan).toMatchObject({ ok: false, code: 'invalid_state' });
    }
  });

  it('refuses any action while another runs or the instance is in transition (action_in_progress)', () => {
    for (const type of ['start', 'stop', 'reboot', 'snapshot'] as ActionType[]) {
      expect(planAction({ serviceStatus: 'active', powerState: 'running', actionRunning: true }, type)).toMatchObject({
        code: 'action_in_progress',
      });
      expect(planAction(idle('starting'), type)).toMatchObject({ code: 'action_in_progress' });
      expect(planAction(idle('stopping'), type)).toMatchObject({ code: 'action_in_progress' });
    }
  });

  it('knows the transitional states', () => {
    expect(['running', 'stopped', 'starting', 'stopping'].filter((s) => isTransitional(s as PowerState))).toEqual(['starting', 'stopping']);
  });
});

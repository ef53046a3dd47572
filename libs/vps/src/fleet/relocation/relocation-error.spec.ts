import { ComputeProviderError } from '../../compute/compute-provider';
import { failureOf, RelocationError, RelocationRefused, retryable } from './relocation-error';

describe('relocation errors (what the job tries again, what it records)', () => {
  it('never tries a refusal again; the compute port says itself; anything else (a lost connection) is tried again', () => {
    expect(retryable(new RelocationRefused('backup_unavailable', 'gone'))).toBe(false);
    expect(retryable(RelocationRefused.notFound('Host'))).toBe(false);
    expect(retryable(new RelocationError('invalid_state', 'rolled back'))).toBe(true);
    expect(retryable(new ComputeProviderError('hypervisor_unavailable', 'timeout', true))).toBe(true);
    expect(retryable(new ComputeProviderError('not_found', 'no such domain'))).toBe(false);
    expect(retryable(new Error('ECONNRESET'))).toBe(true);
  });

  it('records the code of a relocation or compute error, the fallback for any other', () => {
    expect(failureOf(RelocationRefused.notFound('Host'), 'evacuation_failed')).toEqual({ code: 'not_found', message: 'Host not found.' });
    expect(failureOf(new ComputeProviderError('invalid_state', 'The machine is not stopped.'), 'move_failed')).toEqual({
      code: 'invalid_state',
      message: 'The machine is not stopped.',
    });
    expect(failureOf(new Error('socket hang up'), 'evacuation_failed')).toEqual({ code: 'evacuation_failed', message: 'socket hang up' });
  });
});

import { ComputeProviderError } from '../compute-provider';
import { lookBeforeRetry } from './look-before-retry';
import { Virsh } from './virsh';

const dropped = () => new ComputeProviderError('hypervisor_unavailable', 'The hypervisor cannot be reached.', true);
const fast = { attempts: 3, delayMs: 1 };

describe('libvirt steps after a timeout (issue 32)', () => {
  it('adopts what libvirtd did after virsh gave up, instead of doing it again', async () => {
    const calls: string[] = [];
    await lookBeforeRetry(
      async () => {
        calls.push('define');
        throw dropped();
      },
      async () => {
        calls.push('look');
        return true;
      },
      fast,
    );
    expect(calls).toEqual(['define', 'look']);
  });

  it('acts again when the step did not happen, and gives up after the last attempt', async () => {
    let defines = 0;
    await lookBeforeRetry(
      async () => {
        if (++defines < 2) throw dropped();
      },
      async () => false,
      fast,
    );
    expect(defines).toBe(2);

    let tries = 0;
    await expect(
      lookBeforeRetry(
        async () => {
          tries++;
          throw dropped();
        },
        async () => false,
        fast,
      ),
    ).rejects.toMatchObject({ code: 'hypervisor_unavailable' });
    expect(tries).toBe(3);
  });

  it('never retries a refusal; one whose effect is there anyway (a lost earlier try did it) counts as done', async () => {
    const refused = () => Promise.reject(new ComputeProviderError('hypervisor_error', 'The hypervisor refused the request.'));
    const step = jest.fn(refused);
    await expect(lookBeforeRetry(step, async () => false, fast)).rejects.toMatchObject({ code: 'hypervisor_error' });
    expect(step).toHaveBeenCalledTimes(1);
    await expect(lookBeforeRetry(refused, async () => true, fast)).resolves.toBeUndefined();
  });

  it('gives virsh a keepalive of LIBVIRT_KEEPALIVE_SECONDS', async () => {
    // echo stands in for virsh: it prints the arguments it was given.
    expect(await new Virsh(90, '/bin/echo').run('qemu:///system', ['list'], { timeoutMs: 5000 })).toBe(
      '-q -k 5 -K 17 -c qemu:///system list\n',
    );
    expect(await new Virsh(3, '/bin/echo').run('qemu:///system', ['list'], { timeoutMs: 5000 })).toBe(
      '-q -k 3 -K 1 -c qemu:///system list\n',
    );
  });
});

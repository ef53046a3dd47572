import { setTimeout as sleep } from 'node:timers/promises';
import { ComputeProviderError } from '../compute-provider';

export interface RetryPolicy {
  attempts: number;
  delayMs: number;
}

export const STEP_RETRIES: RetryPolicy = { attempts: 3, delayMs: 1000 };

/**
 * Runs one libvirt step that changes something. When virsh gives up without an answer (a timeout,
 * a dropped connection: retryable), libvirtd may still have done it, so before acting again it
 * looks whether the step's effect is there (`done`) and, if so, adopts it instead of failing or
 * doing it twice. A refusal is never retried, but it is looked at too: a lost earlier
 * try may have done the step after all (a define refused because the domain now exists, a start
 * refused because it runs), and then the step is done.
 */
export async function lookBeforeRetry(step: () => Promise<unknown>, done: () => Promise<boolean>, policy = STEP_RETRIES): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await step();
      return;
    } catch (err) {
      const retryable = err instanceof ComputeProviderError && err.retryable;
      if (await done().catch(() => false)) return;
      if (!retryable || attempt >= policy.attempts) throw err;
      await sleep(policy.delayMs * attempt);
    }
  }
}

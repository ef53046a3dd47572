import type { RetryNotice, RetryOptions } from '@hosting-account/sdk';

/**
 * What hostctl says while the SDK waits out a 429: one line on stderr, or on a terminal a line
 * counting down to the retry. With `--no-wait-rate-limit` it does not wait: the 429 is the answer.
 */
export function retryNotices(options: { waitRateLimit?: boolean }): RetryOptions['onRetry'] {
  return (notice: RetryNotice) => {
    if (notice.response?.status !== 429) return undefined;
    if (options.waitRateLimit === false) return false;
    countDown(notice.delayMs);
    return undefined;
  };
}

function countDown(delayMs: number): void {
  const stream = process.stderr;
  const end = Date.now() + delayMs;
  const line = () => `rate limited, retrying in ${Math.max(1, Math.ceil((end - Date.now()) / 1000))} s`;
  if (!stream.isTTY) return void stream.write(`${line()}\n`);
  const draw = () => stream.write(`\r${line()} (Ctrl-C to stop)\u001b[K`);
  draw();
  const ticks = setInterval(draw, 1000).unref();
  // Set before the SDK starts its own wait of the same length, so it fires first: the line is gone
  // before anything the retried request prints.
  setTimeout(() => {
    clearInterval(ticks);
    stream.write('\r\u001b[K');
  }, delayMs).unref();
}

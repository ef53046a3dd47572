/** Polls until `ok(value)` holds or the time is up, and returns the last value either way. */
export async function waitFor<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** waitFor that fails with `message(last value)` when the time is up before `ok(value)` holds. */
export async function waitForOrFail<T>(
  probe: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs: number,
  message: (last: T) => string,
): Promise<T> {
  const value = await waitFor(probe, ok, timeoutMs);
  if (!ok(value)) throw new Error(message(value));
  return value;
}

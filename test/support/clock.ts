type FakeTimers = Extract<NonNullable<Parameters<typeof jest.useFakeTimers>[0]>, { doNotFake?: unknown }>;

/**
 * Everything jest's fake timers can fake but `Date`: with `advanceTimers: true` the process's wall
 * clock is stepped while timers, the monotonic clock and the event loop run as they do.
 */
export const NOT_DATE: NonNullable<FakeTimers['doNotFake']> = [
  'nextTick',
  'setImmediate',
  'clearImmediate',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'queueMicrotask',
  'hrtime',
  'performance',
];

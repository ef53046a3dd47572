import { prettyLogs } from './logger';

describe('prettyLogs', () => {
  const original = process.stdout.isTTY;
  afterEach(() => (process.stdout.isTTY = original));

  it('pretty-prints at a terminal outside production only', () => {
    process.stdout.isTTY = true;
    expect(prettyLogs('development')).toBe(true);
    expect(prettyLogs('test')).toBe(true);
    expect(prettyLogs('production')).toBe(false);
  });

  it('keeps JSON lines when the output is not a terminal (pipes, files, containers)', () => {
    process.stdout.isTTY = false;
    expect(prettyLogs('development')).toBe(false);
  });
});

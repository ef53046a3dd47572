import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeRunTempFolder, systemTmpdir, useRunTempFolder } from './temp-folder';

// An environment of its own: this worker already runs in the run's folder (and os.tmpdir() reads
// the process's real environment, not the copy a test sees).
describe("the run's temp folder", () => {
  it('fails naming what tests left, removes it, and gives TMPDIR back', () => {
    const env: NodeJS.ProcessEnv = { TMPDIR: '/var/tmp' };
    useRunTempFolder(env);
    const run = env.TMPDIR!;
    expect(run.startsWith(join(tmpdir(), 'test-tmp-'))).toBe(true);
    expect(systemTmpdir(env)).toBe(tmpdir());
    writeFileSync(join(run, 'cfg-left'), '{"JWT_SECRET":"..."}');
    mkdirSync(join(run, 'recipe-left'));
    mkdirSync(join(run, 'node-compile-cache'));

    expect(() => closeRunTempFolder(env)).toThrow(/left 2 entries in the temp folder \(now removed\): cfg-left, recipe-left\./);
    expect(existsSync(run)).toBe(false);
    expect(env).toEqual({ TMPDIR: '/var/tmp' });
  });

  it('passes when tests removed what they made; a second setup or teardown does nothing', () => {
    const env: NodeJS.ProcessEnv = {};
    useRunTempFolder(env);
    const run = env.TMPDIR!;
    useRunTempFolder(env);
    expect(env.TMPDIR).toBe(run);
    mkdirSync(join(run, 'node-compile-cache'));

    closeRunTempFolder(env);
    expect(existsSync(run)).toBe(false);
    expect(env).toEqual({});
    expect(() => closeRunTempFolder(env)).not.toThrow();
  });
});

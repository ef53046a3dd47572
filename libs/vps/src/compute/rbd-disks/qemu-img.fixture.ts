import { execFileSync } from 'node:child_process';

/** Whether the specs that run the real qemu-img (Debian qemu-utils) can. */
export const qemuImgInstalled = (() => {
  try {
    execFileSync('qemu-img', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

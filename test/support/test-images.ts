import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const SCRIPTS = join(__dirname, '../../scripts');

/** The Debian test image (cloud-init, sshd, qemu-guest-agent); cached by package versions, so .ci/run built it before the pass. */
export function testImageFile(): string {
  return execFileSync('bash', [join(SCRIPTS, 'build-test-image.sh')], { encoding: 'utf8' }).trim();
}

/** The rescue system made from the test image: a root filesystem of its own UUID. */
export function rescueTestImageFile(image: string): string {
  return execFileSync('bash', [join(SCRIPTS, 'build-rescue-test-image.sh'), image], { encoding: 'utf8' }).trim();
}

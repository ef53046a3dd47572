// Long suites first, so that no worker idles at the end of a run. Jest's own order is by each file's
// duration in the previous run, and CI's PostgreSQL pass, where the Debian-guest suites are skipped
// (guestSuiteInThisPass), is that previous run for the PGlite pass: the suites that take minutes
// there were started last. The files that boot Debian guests go first, biggest first; the rest keep
// Jest's order.
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

const BOOTS_DEBIAN_GUESTS = /guestSuiteInThisPass\(\)|The VPS recipe, as written/;

class GuestSuitesFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const heavy = sorted.filter((test) => BOOTS_DEBIAN_GUESTS.test(readFileSync(test.path, 'utf8')));
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    heavy.sort((a, b) => size(b) - size(a));
    return [...heavy, ...sorted.filter((test) => !heavy.includes(test))];
  }
}

module.exports = GuestSuitesFirst;

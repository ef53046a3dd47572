'use strict';
// Preloaded into the bench's measured API process (NODE_OPTIONS --require): on SIGUSR2 it runs a
// full collection and writes what the heap holds then to BENCH_HEAP_PROBE_FILE, so the bench can
// report the live set (the old space after a full GC) beside the resident sizes. Nothing else
// changes in the process until the signal comes.
const fs = require('node:fs');
const v8 = require('node:v8');
const vm = require('node:vm');

const file = process.env.BENCH_HEAP_PROBE_FILE;
if (file) {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  process.on('SIGUSR2', () => {
    gc();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    const { heapUsed, heapTotal, rss } = process.memoryUsage();
    fs.writeFileSync(file, JSON.stringify({ heapUsed, heapTotal, rss, oldSpaceUsed: spaces.old_space, spaces }));
  });
}

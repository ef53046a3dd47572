#!/usr/bin/env node
'use strict';
let main;
try {
  ({ main } = require('../dist/main.js'));
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && /dist[\\/]main\.js/.test(error.message)) {
    process.stderr.write('hostctl is not built yet: run "npm run build" in the repository (or install the packed tarball).\n');
    process.exit(1);
  }
  throw error;
}
main(process.argv).then((code) => {
  process.exitCode = code;
});

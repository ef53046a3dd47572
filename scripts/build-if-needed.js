#!/usr/bin/env node
// Builds dist/ (and the SDK's and CLI's) when missing or older than any source file, so `npm start`
// and `npm test` work on a fresh clone.
const { execSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
// A developer running one suite while the tree is mid-change may keep the last build.
if (process.env.SKIP_BUILD === '1' && existsSync(join(root, 'dist/apps/api/apps/api/src/main.js'))) process.exit(0);
const marker = join(root, 'dist/apps/api/apps/api/src/main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const built = existsSync(marker) ? statSync(marker).mtimeMs : 0;
// The API compiles the MCP server's sources (and the SDK's under them) into its own build.
const sources = Math.max(...['apps', 'libs', 'mcp/src', 'sdk/src'].map((dir) => newestSource(join(root, dir))));
if (built < sources) {
  process.stderr.write('Building the API (npm run build)...\n');
  execSync('npx nest build', { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}

// The MCP server and the CLI are built against the SDK's build, and the CLI against the MCP server's.
for (const workspace of ['sdk', 'mcp', 'cli']) {
  const output = join(root, workspace, 'dist');
  const builtAt = existsSync(output)
    ? (statSync(join(output, { sdk: 'cjs/index.js', mcp: 'index.js', cli: 'main.js' }[workspace]), { throwIfNoEntry: false })?.mtimeMs ?? 0)
    : 0;
  if (builtAt < newestSource(join(root, workspace, 'src'))) {
    process.stderr.write(`Building ${workspace}/ (npm run build -w ${workspace})...\n`);
    execSync(`npm run build -w ${workspace}`, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  }
}

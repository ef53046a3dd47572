#!/usr/bin/env node
// Builds dist/cjs (CommonJS) and dist/esm (ES modules), each with type declarations. tsc copies
// no .d.ts sources, so the generated schema is copied next to both; ES modules need the file
// extension on relative imports, which tsc leaves as written.
const { execFileSync } = require('node:child_process');
const { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc');
rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const [config, dir, type] of [
  ['tsconfig.build.json', 'cjs', 'commonjs'],
  ['tsconfig.esm.json', 'esm', 'module'],
]) {
  execFileSync(process.execPath, [tsc, '-p', join(root, config)], { stdio: 'inherit' });
  const out = join(root, 'dist', dir);
  copyFileSync(join(root, 'src/schema.d.ts'), join(out, 'schema.d.ts'));
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type }) + '\n');
  if (type === 'module') for (const file of readdirSync(out).filter((f) => /\.(js|d\.ts)$/.test(f))) addExtensions(join(out, file));
}

function addExtensions(path) {
  const text = readFileSync(path, 'utf8');
  const fixed = text.replace(/(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.\.?\/[^'"]+?)\2/g, (match, lead, quote, spec) =>
    /\.(m|c)?js$/.test(spec) ? match : `${lead}${quote}${spec}.js${quote}`,
  );
  if (fixed !== text) writeFileSync(path, fixed);
}

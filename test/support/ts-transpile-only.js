// Compiles a TypeScript file on its own (ts.transpileModule), without the type checker: `npm run
// typecheck` checks types once, so the tests need only the emitted JavaScript. Files that the
// @nestjs/swagger plugin rewrites (DTOs, controllers) still go through ts-jest with the plugin.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '../..');
const configFile = path.join(root, 'tsconfig.json');
const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
const compilerOptions = {
  ...options,
  module: ts.ModuleKind.CommonJS,
  sourceMap: false,
  inlineSourceMap: true,
  inlineSources: true,
  declaration: false,
  noEmit: false,
  outDir: undefined,
};
const configHash = crypto
  .createHash('sha1')
  .update(fs.readFileSync(configFile))
  .update(fs.readFileSync(__filename))
  .update(ts.version)
  .digest('hex');

module.exports = {
  process(source, filename) {
    const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
    return { code: outputText };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha1').update(configHash).update(filename).update(source).digest('hex');
  },
};

// ts-jest with the @nestjs/swagger plugin, for the files the plugin rewrites (DTOs, controllers).
// ts-jest's own cache key asks TypeScript for each file's imports, which starts a language service
// (about 2 s) in every Jest worker of every project even when every file is cached. This key is
// the file, its source and a fingerprint of every TypeScript source the plugin could read types
// from (paths, sizes, mtimes), so a cached run starts no compiler, and any source change still
// recompiles these files. ts-jest compiles as before on a miss.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const tsJest = require('ts-jest').default;

const root = path.resolve(__dirname, '../..');
const SOURCE_DIRS = ['apps', 'libs'].map((dir) => path.join(root, dir));

let fingerprint;
function sourceFingerprint() {
  if (fingerprint) return fingerprint;
  const hash = crypto.createHash('sha1');
  for (const file of [path.join(root, 'tsconfig.json'), path.join(root, 'nest-cli.json'), __filename]) {
    hash.update(fs.readFileSync(file));
  }
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) {
        const { size, mtimeMs } = fs.statSync(full);
        hash.update(`${full}:${size}:${mtimeMs}\n`);
      }
    }
  };
  SOURCE_DIRS.forEach(walk);
  fingerprint = hash.digest('hex');
  return fingerprint;
}

module.exports = {
  createTransformer(options) {
    const inner = tsJest.createTransformer(options);
    const optionsHash = crypto
      .createHash('sha1')
      .update(JSON.stringify(options ?? {}))
      .digest('hex');
    return {
      canInstrument: false,
      getCacheKey(source, filename, transformOptions) {
        return crypto
          .createHash('sha1')
          .update(optionsHash)
          .update(sourceFingerprint())
          .update(transformOptions.configString)
          .update(filename)
          .update(source)
          .digest('hex');
      },
      process: (source, filename, transformOptions) => inner.process(source, filename, transformOptions),
    };
  },
};

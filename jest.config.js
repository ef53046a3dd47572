// Three tiers: unit specs beside the code; integration specs in test/integration (an area's services
// in a TestingModule, no HTTP) and e2e specs in test/ (the whole app over HTTP), both on a real database
// (PostgreSQL when TEST_DATABASE_URL is set, otherwise the embedded PGlite); contract checks inside e2e.
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.json');

// The @nestjs/swagger plugin rewrites DTO and controller files, and it needs the type checker, so
// those go through ts-jest with the plugin (tests see the same OpenAPI document as `nest build`);
// every other file is compiled on its own, without type checking (`npm run typecheck` does that).
const swaggerPlugin = require('./nest-cli.json').compilerOptions.plugins.find((p) => p.name === '@nestjs/swagger');
const pluginSuffixes = [...swaggerPlugin.options.dtoFileNameSuffix, '.controller.ts'];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const transform = {
  [`^.+(${pluginSuffixes.map(escape).join('|')})$`]: [
    '<rootDir>/test/support/swagger-ts-jest.js',
    {
      tsconfig: 'tsconfig.json',
      astTransformers: {
        before: ['<rootDir>/test/support/swagger-transformer.js'],
      },
    },
  ],
  '^.+\\.ts$': '<rootDir>/test/support/ts-transpile-only.js',
};
// NestJS 12 and a few of its dependencies ship only ES modules; Jest (before Node 24.9) cannot
// require() them, so they are compiled to CommonJS here, as our own code is for production.
const ESM_PACKAGES = [
  '@nestjs',
  'file-type',
  'strtok3',
  'token-types',
  'uint8array-extras',
  '@tokenizer',
  'load-esm',
  '@electric-sql',
  '@scure',
  '@noble',
  '@otplib',
];
transform['^.+\\.[mc]?js$'] = [
  'babel-jest',
  {
    babelrc: false,
    configFile: false,
    plugins: [
      require.resolve('./test/support/babel-import-meta.js'),
      require.resolve('@babel/plugin-transform-dynamic-import'),
      require.resolve('@babel/plugin-transform-modules-commonjs'),
    ],
  },
];
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`];
const moduleNameMapper = pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' });

module.exports = {
  testTimeout: 60000,
  // Two files at a time, the machine's two cores; here and not on the command line, so that
  // `npm test -- --runInBand` (or `-- --maxWorkers=1`) works as the README says.
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/support/sequencer.js',
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/sdk/src/**/*.spec.ts',
        '<rootDir>/mcp/src/**/*.spec.ts',
        '<rootDir>/cli/src/**/*.spec.ts',
        '<rootDir>/test/support/**/*.spec.ts',
        '<rootDir>/bench/**/*.spec.ts',
      ],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      // A temp folder of the run's own, checked for leftovers at the end (test/support/temp-folder.ts).
      globalSetup: '<rootDir>/test/support/unit-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // The middle tier: an area's services in a TestingModule on the real test database, no HTTP.
    {
      displayName: 'integration',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/integration/**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // Fault scenarios stop and start a PostgreSQL cluster of their own: `npm run test:faults`.
    {
      displayName: 'faults',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/faults/**/*.faults-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
    },
  ],
};

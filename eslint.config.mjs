import tseslint from 'typescript-eslint';

const THROUGH_ALIAS = { group: ['../../*/src/*', '../../../libs/*'], message: 'Import other libraries through their @app/ alias.' };
const ONLY_REPOSITORIES = 'Data access goes in the area\'s *.repository.ts (issue 28; docs/adding-a-module.md, "Data").';
const ENTITY_MANAGER_CALLS =
  '/^(save|insert|update|delete|remove|upsert|find|findBy|findOne|findOneBy|findOneOrFail|findAndCount|count|exists|increment|decrement)$/';
/** Core's infrastructure, not an area's data: the pool, migrations, locks, pg-boss, NOTIFY, idempotency, page helper. */
const DATA_INFRASTRUCTURE = [
  'libs/core/src/database/**',
  'libs/core/src/jobs/pg-boss-job-queue.ts',
  'libs/core/src/idempotency/idempotency.store.ts',
  'libs/core/src/pagination/page-of-rows.ts',
  'apps/api/src/cli.ts',
  'apps/api/src/metrics/metrics.service.ts',
];
export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '**/dist/**',
      'node_modules/**',
      'coverage/**',
      'data/**',
      'bench/results/**',
      '**/*.js',
      '**/*.mjs',
      'sdk/src/schema.d.ts',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [THROUGH_ALIAS] }],
    },
  },
  // Repositories are the only data access (issue 28): no other class holds a TypeORM repository, a
  // DataSource or a raw statement. Below, the documented infrastructure (docs/adding-a-module.md, "Data").
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.repository.ts', '**/migrations/**', ...DATA_INFRASTRUCTURE],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [THROUGH_ALIAS],
          paths: [
            { name: 'typeorm', importNames: ['Repository', 'DataSource'], message: ONLY_REPOSITORIES },
            { name: '@nestjs/typeorm', importNames: ['InjectRepository'], message: ONLY_REPOSITORIES },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'CallExpression[callee.property.name=/^(query|getRepository|createQueryBuilder)$/]', message: ONLY_REPOSITORIES },
        {
          selector: `CallExpression[callee.object.name=/^(m|manager|em)$/][callee.property.name=${ENTITY_MANAGER_CALLS}]`,
          message: ONLY_REPOSITORIES,
        },
      ],
    },
  },
  // Repositories return rows; mapping them to responses is the DTO's `static from...()`.
  {
    files: ['libs/**/*.repository.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [THROUGH_ALIAS, { group: ['**/*.response'], message: 'A repository returns rows; the response DTO maps them.' }] },
      ],
    },
  },
);

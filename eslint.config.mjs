import tseslint from 'typescript-eslint';

const THROUGH_ALIAS = { group: ['../../*/src/*', '../../../libs/*'], message: 'Import other libraries through their @app/ alias.' };
const ONLY_REPOSITORIES = 'Data access goes in the area\'s *.repository.ts (docs/adding-a-module.md, "Data").';
const ENTITY_MANAGER_CALLS =
  '/^(save|insert|update|delete|remove|upsert|find|findBy|findOne|findOneBy|findOneOrFail|findAndCount|count|exists|increment|decrement)$/';
/** Core's infrastructure, not an area's data: the pool, migrations, locks, pg-boss, NOTIFY, idempotency, page helper. */
const DATA_INFRASTRUCTURE = [
  'libs/core/src/database/**',
  'libs/core/src/jobs/pg-boss-job-queue.ts',
  'libs/core/src/idempotency/idempotency.store.ts',
  'libs/core/src/pagination/page-of-rows.ts',
  'apps/api/src/cli.ts',
  'apps/api/src/operator-metrics/operator-metrics.ts',
];
const THROUGH_HELPERS =
  "Raw statements go through runSql/sqlRows/sqlFirst/sqlCount from @app/core (libs/core/src/database/statement.ts): TypeORM's query() answers UPDATE and DELETE with [rows, count].";
const READ_THROUGH_HELPERS =
  "TypeORM's query() answers UPDATE and DELETE with [rows, count] and everything else with rows: read a statement's rows or count with runSql/sqlRows/sqlFirst/sqlCount from @app/core.";
const ONE_WAY_TO_A_TRANSACTION = {
  selector: "CallExpression[callee.property.name='transaction']",
  message:
    'Open a transaction with TransactionRunner or inTransaction from @app/core: on the embedded database they make a statement started outside the transaction fail at once instead of waiting forever for the connection it holds.',
};
const AWAITED_QUERY = "AwaitExpression > CallExpression[callee.property.name='query']";
/** The statement (a string or a template) opens with one of `words`. */
const opens = (words) => [`[arguments.0.value=/^\\s*(${words})\\b/i]`, `[arguments.0.quasis.0.value.raw=/^\\s*(${words})\\b/i]`];
/** Where query() is still called (tests, migrations, the driver level): its answer taken as the other shape. */
const QUERY_ANSWER_MISREAD = [
  // An UPDATE or DELETE answers [rows, count], not its rows.
  ...opens('UPDATE|DELETE').map((first) => `VariableDeclarator > ${AWAITED_QUERY}${first}`),
  // A WITH may end in one.
  ...opens('WITH').map((first) => `VariableDeclarator[id.type='ArrayPattern'] > ${AWAITED_QUERY}${first}`),
  // [rows, count] read from whatever statement: a SELECT answers its rows alone.
  `VariableDeclarator[id.type='ArrayPattern'][id.elements.length>1] > ${AWAITED_QUERY}`,
].map((selector) => ({ selector, message: READ_THROUGH_HELPERS }));
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
  // Where query() stays (tests, migrations, the driver level), its answer is not read as the other shape.
  {
    files: ['**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...QUERY_ANSWER_MISREAD] },
  },
  // One way to run a raw statement. Below, the driver level and the migrations' DDL.
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/core/src/database/**', '**/migrations/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='query']", message: THROUGH_HELPERS },
        ONE_WAY_TO_A_TRANSACTION,
      ],
    },
  },
  // Repositories are the only data access: no other class holds a TypeORM repository, a
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
          selector:
            'CallExpression[callee.name=/^(runSql|sqlRows|sqlFirst|sqlCount|poolQuery|pageOfRows|pageOfEntities|countRows|touchLastUsed)$/]',
          message: ONLY_REPOSITORIES,
        },
        ONE_WAY_TO_A_TRANSACTION,
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

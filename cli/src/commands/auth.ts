import { hostname } from 'node:os';
import { Command } from 'commander';
import { HostingClient, listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { resolveApiKeyId } from '../refs';
import { currentAccountLabel } from './accounts';
import { examples, globals, session } from '../command-context';
import { Context, updateConfig } from '../config';
import { UsageError } from '../errors';
import { asFields, Column, paint, printDone, printList, printObject } from '../output';
import { ask, readStdin } from '../prompt';
import { apiClient, client, sessionFields, target, trimUrl } from '../session';

type ApiKey = Schemas['ApiKeyResponse'];

const KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'ID', value: (k) => k.id },
  { header: 'NAME', value: (k) => k.name },
  { header: 'PREFIX', value: (k) => k.prefix },
  { header: 'SCOPES', value: (k) => k.scopes },
  { header: 'CREATED', value: (k) => k.createdAt },
  { header: 'EXPIRES', value: (k) => k.expiresAt },
  { header: 'LAST USED', value: (k) => k.lastUsedAt },
];

export function authCommand(): Command {
  const auth = new Command('auth').description('Log in and out, and manage API keys (tokens)');

  auth
    .command('login')
    .description('Log in with email and password and keep the session (or an API key) in the current context')
    .option('--url <url>', "the API to log in to (default: HOSTCTL_URL, the context's URL, or http://127.0.0.1:3000)")
    .option('--email <email>', 'account email (asked for if not given)')
    .option('--password-stdin', 'read the password from standard input instead of asking for it')
    .option('--api-key', 'create an API key with the session, keep the key and end the session')
    .option('--code <code>', 'the 6-digit two-factor code, for accounts with 2FA (asked for if needed and not given)')
    .option('--recovery-code <code>', 'a two-factor recovery code instead of --code (each works once)')
    .addHelpText(
      'after',
      '\nThe credentials are kept in $XDG_CONFIG_HOME/hostctl/config.json (mode 0600).\n' +
        examples(
          'hostctl auth login --url https://api.hosting.example',
          'hostctl --context work auth login --email ops@example.com --api-key',
          'printf %s "$PASSWORD" | hostctl auth login --email ops@example.com --password-stdin',
          'printf %s "$PASSWORD" | hostctl auth login --email ops@example.com --password-stdin --code 123456',
        ),
    )
    .action(async (options: LoginOptions, command: Command) => {
      const global = globals(command);
      const { contextName: name, url: defaultUrl, urlSource: defaultSource } = target(global.context);
      const url = trimUrl(options.url ?? defaultUrl);
      const urlSource = options.url ? 'the --url option' : defaultSource;
      const email = options.email ?? (await ask('Email: ', { hint: 'give it with --email' }));
      const password = options.passwordStdin
        ? await readStdin()
        : await ask('Password: ', { hidden: true, hint: 'pipe it in with --password-stdin' });
      if (!email || !password) throw new UsageError('email and password are required');
      const anonymous = client(url, urlSource, global);
      const tokens = await withSecondFactor(
        anonymous,
        await unwrap(anonymous.POST('/api/auth/login', { body: { email, password } })),
        options,
      );
      let context: Context = { url, email, ...sessionFields(tokens) };
      if (options.apiKey) context = { url, email, apiKey: await keyFromSession(client(url, urlSource, global, tokens.accessToken)) };
      updateConfig((config) => {
        config.contexts[name] = context;
        config.currentContext = name;
      });
      process.stderr.write(`Logged in as ${tokens.account.email} (context "${name}", ${options.apiKey ? 'API key' : 'session'}).\n`);
    });

  auth
    .command('logout')
    .description('End the session and forget the credentials of the current context')
    .addHelpText('after', examples('hostctl auth logout', 'hostctl --context work auth logout'))
    .action(async (_options: unknown, command: Command) => {
      const global = globals(command);
      const { contextName: name, context } = target(global.context);
      if (!context?.apiKey && !context?.refreshToken) throw new UsageError(`context "${name}" holds no credentials`);
      if (context.refreshToken) await unwrap(apiClient({ ...global, context: name }).POST('/api/auth/logout')).catch(() => undefined);
      updateConfig((config) => {
        config.contexts[name] = { url: context.url };
      });
      const note = context.apiKey ? ' The API key itself stays valid: revoke it with "hostctl auth token revoke".' : '';
      process.stderr.write(`Logged out of context "${name}".${note}\n`);
    });

  auth
    .command('whoami')
    .description('Show the login the current credentials belong to, and the account and role they act with')
    .addHelpText('after', examples('hostctl auth whoami', 'HOSTCTL_TOKEN=hpk_... hostctl auth whoami -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      const me = await unwrap(api.GET('/api/auth/me'));
      printObject(
        me,
        [
          { header: 'ID', value: (a) => a.id },
          { header: 'Email', value: (a) => a.email },
          { header: 'Name', value: (a) => a.name },
          { header: 'Created', value: (a) => a.createdAt },
          { header: 'Account', value: currentAccountLabel },
          { header: 'Role', value: (a) => a.role },
        ],
        out,
      );
    });

  auth.addCommand(tokenCommand());
  return auth;
}

function tokenCommand(): Command {
  const token = new Command('token').description('API keys: long-lived credentials for scripts and CI');

  token
    .command('create')
    .description('Create an API key; its secret is shown this once')
    .requiredOption('--name <name>', 'what the key is for (1 to 100 characters)')
    .option('--scopes <scopes>', 'comma-separated: read, write (default: all your role allows, read alone for a read_only member)')
    .option('--expires-at <time>', 'ISO 8601 time after which the key stops working')
    .addHelpText(
      'after',
      examples(
        'hostctl auth token create --name ci --scopes read',
        'hostctl auth token create --name backup --expires-at 2027-01-01T00:00:00Z -o json | jq -r .key',
      ),
    )
    .action(async (options: { name: string; scopes?: string; expiresAt?: string }, command: Command) => {
      const scopes = options.scopes
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (scopes?.some((s) => s !== 'read' && s !== 'write'))
        throw new UsageError(`--scopes takes read and/or write, not "${options.scopes}"`);
      const { api, out } = session(command);
      const key = await unwrap(
        api.POST('/api/auth/api-keys', {
          body: { name: options.name, scopes: scopes as ('read' | 'write')[] | undefined, expiresAt: options.expiresAt },
        }),
      );
      printObject(key, [{ header: 'Key', value: (k) => k.key }, ...asFields(KEY_COLUMNS)], out);
      if (process.stderr.isTTY) process.stderr.write(paint('Store the key now: it is not shown again.', 'yellow', process.stderr) + '\n');
    });

  token
    .command('list')
    .description('List API keys (their secrets are never shown again)')
    .addHelpText('after', examples('hostctl auth token list', 'hostctl auth token list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      printList(await listAll(api, '/api/auth/api-keys'), KEY_COLUMNS, out);
    });

  token
    .command('revoke')
    .description('Revoke an API key; it stops working at once')
    .argument('<key>', 'API key id, or its name or prefix')
    .addHelpText('after', examples('hostctl auth token revoke ci', 'hostctl auth token revoke 5d2a...'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveApiKeyId(api, reference);
      await unwrap(api.DELETE('/api/auth/api-keys/{id}', { params: { path: { id } } }));
      printDone(`API key ${id} revoked`, { id, revoked: true }, out);
    });
  return token;
}

interface LoginOptions {
  url?: string;
  email?: string;
  passwordStdin?: boolean;
  apiKey?: boolean;
  code?: string;
  recoveryCode?: string;
}

type LoginAnswer = Schemas['AuthTokensResponse'] | Schemas['MfaRequiredResponse'];

/** Accounts with two-factor sign-in answer the password step with an mfaToken; the code completes it. */
async function withSecondFactor(api: HostingClient, answer: LoginAnswer, options: LoginOptions): Promise<Schemas['AuthTokensResponse']> {
  if (!('mfaRequired' in answer)) return answer;
  const second = options.recoveryCode
    ? { mfaToken: answer.mfaToken, recoveryCode: options.recoveryCode }
    : {
        mfaToken: answer.mfaToken,
        code:
          options.code ??
          (await ask('Two-factor code: ', {
            hidden: true,
            refusal:
              'this account has two-factor sign-in, and standard input is not a terminal to ask for the code: ' +
              'give it with --code <6 digits> (or a recovery code with --recovery-code <code>)',
          })),
      };
  return unwrap(api.POST('/api/auth/login/2fa', { body: second }));
}

async function keyFromSession(api: HostingClient): Promise<string> {
  const created = await unwrap(api.POST('/api/auth/api-keys', { body: { name: `hostctl on ${hostname()}`.slice(0, 100) } }));
  await unwrap(api.POST('/api/auth/logout')).catch(() => undefined);
  return created.key;
}

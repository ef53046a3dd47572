import { Command } from 'commander';
import { examples, globals } from '../command-context';
import { contextName, DEFAULT_URL, readConfig, updateConfig } from '../config';
import { UsageError } from '../errors';
import { printDone, printList } from '../output';
import { readStdin } from '../prompt';
import { trimUrl } from '../session';

export function contextCommand(): Command {
  const context = new Command('context').description('Contexts: several accounts or APIs, one of them current');

  context
    .command('list')
    .description('List contexts; the current one is marked with *')
    .addHelpText('after', examples('hostctl context list', 'hostctl context list -o json'))
    .action((_options: unknown, command: Command) => {
      const config = readConfig();
      const current = contextName(config);
      const rows = Object.entries(config.contexts).map(([name, c]) => ({
        current: name === current,
        name,
        url: c.url,
        email: c.email ?? null,
        credentials: c.apiKey ? 'api key' : c.refreshToken ? 'session' : 'none',
      }));
      printList(
        rows,
        [
          { header: 'CURRENT', value: (r) => (r.current ? '*' : '') },
          { header: 'NAME', value: (r) => r.name },
          { header: 'URL', value: (r) => r.url },
          { header: 'EMAIL', value: (r) => r.email },
          { header: 'CREDENTIALS', value: (r) => r.credentials },
        ],
        globals(command),
      );
    });

  context
    .command('use')
    .description('Make a context the current one')
    .argument('<name>', 'context name')
    .addHelpText('after', examples('hostctl context use work'))
    .action((name: string, _options: unknown, command: Command) => {
      updateConfig((config) => {
        if (!config.contexts[name]) throw new UsageError(`no context "${name}" (see "hostctl context list")`);
        config.currentContext = name;
      });
      printDone(`Switched to context "${name}"`, { currentContext: name }, globals(command));
    });

  context
    .command('current')
    .description('Print the name of the current context')
    .addHelpText('after', examples('hostctl context current'))
    .action(() => {
      process.stdout.write(contextName(readConfig()) + '\n');
    });

  context
    .command('create')
    .description('Create a context with an API key (read from standard input) and make it current')
    .argument('<name>', 'context name')
    .option('--url <url>', 'the API', DEFAULT_URL)
    .option('--token-stdin', 'read the API key from standard input')
    .addHelpText(
      'after',
      examples(
        'hostctl context create staging --url https://api.staging.example   # then: hostctl auth login',
        'printf %s "$HOSTING_API_KEY" | hostctl context create ci --url https://api.hosting.example --token-stdin',
      ),
    )
    .action(async (name: string, options: { url: string; tokenStdin?: boolean }, command: Command) => {
      const apiKey = options.tokenStdin ? await readStdin() : undefined;
      if (options.tokenStdin && !apiKey) throw new UsageError('standard input held no API key');
      updateConfig((config) => {
        config.contexts[name] = { url: trimUrl(options.url), ...(apiKey ? { apiKey } : {}) };
        config.currentContext = name;
      });
      printDone(`Context "${name}" created and made current`, { name, url: trimUrl(options.url) }, globals(command));
    });

  context
    .command('delete')
    .description('Delete a context and the credentials it holds')
    .argument('<name>', 'context name')
    .addHelpText('after', examples('hostctl context delete old-account'))
    .action((name: string, _options: unknown, command: Command) => {
      updateConfig((config) => {
        if (!config.contexts[name]) throw new UsageError(`no context "${name}"`);
        delete config.contexts[name];
        if (config.currentContext === name) delete config.currentContext;
      });
      printDone(`Context "${name}" deleted`, { name, deleted: true }, globals(command));
    });
  return context;
}

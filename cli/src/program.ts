import { Command, HelpContext, Option } from 'commander';
import { accountsCommand } from './commands/accounts';
import { authCommand } from './commands/auth';
import { completionCommand } from './commands/completion';
import { contextCommand } from './commands/context';
import { dnsCommand } from './commands/dns';
import { firewallCommand } from './commands/firewall';
import { imagesCommand } from './commands/images';
import { invitationsCommand } from './commands/invitations';
import { mcpCommand } from './commands/mcp';
import { membersCommand } from './commands/members';
import { notificationsCommand } from './commands/notifications';
import { servicesCommand } from './commands/services';
import { sshCommand } from './commands/ssh';
import { sshKeysCommand } from './commands/ssh-keys';
import { storageCommand } from './commands/storage';
import { ticketsCommand } from './commands/tickets';
import { volumeCommand } from './commands/volume';
import { vpsCommand } from './commands/vps';
import { FORMATS } from './output';
import { VERSION } from './version';

/**
 * Every command, each with its own help; errors are thrown, not exited on, so main() picks the exit
 * code. `structuredErrors`: commander's own error text is left out, main() writes the error as JSON or YAML.
 */
export function createProgram(options: { structuredErrors?: boolean } = {}): Command {
  const program = new Command('hostctl')
    .description('hostctl is a command-line interface for your hosting account')
    .version(VERSION, '-v, --version', 'print the version')
    .addOption(new Option('-o, --output <format>', 'output format').choices(FORMATS).default('table'))
    .option('--no-header', 'leave out the header line of tables')
    .option('--context <name>', 'use this context instead of the current one (or HOSTCTL_CONTEXT)')
    .option('--no-wait-rate-limit', 'when rate limited (429), fail at once (exit 1) instead of waiting out Retry-After')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput(options.structuredErrors ? { writeErr: () => undefined } : {})
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Environment:
  HOSTCTL_TOKEN    an API key or access token; wins over the context's credentials
  HOSTCTL_URL      the API's address; wins over the context's URL
  HOSTCTL_CONTEXT  the context to use
  NO_COLOR         no colours, even on a terminal

Exit codes: 0 success, 1 the API answered with an error (code and request id on stderr) or could
not be reached, 2 usage error.
`,
    );
  for (const command of [
    authCommand(),
    contextCommand(),
    accountsCommand(),
    membersCommand(),
    invitationsCommand(),
    servicesCommand(),
    vpsCommand(),
    sshCommand(),
    imagesCommand(),
    volumeCommand(),
    firewallCommand(),
    dnsCommand(),
    storageCommand(),
    sshKeysCommand(),
    ticketsCommand(),
    notificationsCommand(),
    mcpCommand(),
  ]) {
    program.addCommand(inheritSettings(command, program));
  }
  program.addCommand(inheritSettings(completionCommand(program), program));
  helpWhenBare(program);
  return program;
}

/** Commands built with `new Command()` do not inherit exitOverride and help settings; copy them down the tree. */
function inheritSettings(command: Command, parent: Command): Command {
  command.copyInheritedSettings(parent);
  for (const child of command.commands) inheritSettings(child, command);
  helpWhenBare(command);
  return command;
}

/**
 * A group called without a subcommand (`hostctl`, `hostctl services`) prints its help on stdout
 * and exits 0, as hcloud does; commander prints it as an error (stderr, exit 1). Only that case:
 * an unknown subcommand or option is still a usage error.
 */
function helpWhenBare(command: Command): void {
  if (command.commands.length === 0) return;
  const help = command.help.bind(command) as (context?: HelpContext) => never;
  command.help = ((context?: HelpContext) => help(context?.error && command.args.length === 0 ? undefined : context)) as Command['help'];
}

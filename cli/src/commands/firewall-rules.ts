import { Command, Option } from 'commander';
import { HostingClient, Schemas, unwrap } from '@hosting-account/sdk';
import { collect, examples, parsePositiveInt, session } from '../command-context';
import { NotFoundError, UsageError } from '../errors';
import { resolveFirewallId } from '../firewall-ref';
import { RULES_HELP, ruleText, rulesFromOptions } from '../firewall-rule-text';
import { printList } from '../output';
import { Firewall, RULE_COLUMNS, showFirewall, waitEnforced } from './firewall-view';

type Rule = Schemas['FirewallRuleRequest'];
interface RuleOptions {
  rule?: string[];
  rulesFile?: string;
  wait?: boolean;
  timeout: number;
}

const READ_MODIFY_WRITE = '\nThe rules are read, changed here and written back whole: a change someone else makes in between is lost.\n';

/** The rule options, --wait and --timeout, shared by set, add and delete. */
function withRuleOptions(command: Command): Command {
  return command
    .option('--rule <rule>', 'a rule (see below); repeat for more', collect)
    .option('--rules-file <path>', 'rules from a JSON or YAML file ("-" for standard input)')
    .option('--wait', 'wait until every VPS the firewall is applied to enforces the new rules (exit code 1 after --timeout)')
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long').default(300).argParser(parsePositiveInt));
}

/** PATCHes the rules, waits when asked, and shows the firewall. */
async function writeRules(command: Command, id: string, rules: Rule[], options: RuleOptions): Promise<void> {
  const { api, out } = session(command);
  let firewall: Firewall = await unwrap(api.PATCH('/api/firewalls/{id}', { params: { path: { id } }, body: { rules } }));
  if (options.wait) firewall = await waitEnforced(api, firewall, options.timeout);
  await showFirewall(api, firewall, out);
}

async function currentRules(api: HostingClient, id: string): Promise<Rule[]> {
  return (await unwrap(api.GET('/api/firewalls/{id}', { params: { path: { id } } }))).rules;
}

/** What identifies a rule: its direction, protocol, port and addresses (a bare address as its host CIDR); not its description. */
function sameRule(a: Rule, b: Rule): boolean {
  const addresses = (rule: Rule) =>
    rule.addresses
      .map((address) => address.toLowerCase())
      .map((address) => (address.includes('/') ? address : `${address}/${address.includes(':') ? 128 : 32}`))
      .sort()
      .join(',');
  return a.direction === b.direction && a.protocol === b.protocol && a.port === b.port && addresses(a) === addresses(b);
}

export function firewallRulesCommand(): Command {
  const rules = new Command('rules').description("A firewall's rules: list them, replace them, add or delete some");

  rules
    .command('list')
    .description('List the rules of a firewall')
    .argument('<firewall>', 'firewall id, or its name')
    .addHelpText('after', examples('hostctl firewall rules list web', 'hostctl firewall rules list web -o json > rules.json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      printList(await currentRules(api, await resolveFirewallId(api, reference)), RULE_COLUMNS, out);
    });

  withRuleOptions(
    rules
      .command('set')
      .description('Replace every rule of a firewall; the VPSes it is applied to follow within seconds')
      .argument('<firewall>', 'firewall id, or its name'),
  )
    .addHelpText(
      'after',
      '\nNo rules at all: --rules-file with an empty list ([]).\n' +
        RULES_HELP +
        examples(
          "hostctl firewall rules set web --rule 'in tcp 22 203.0.113.0/24' --rule 'in tcp 80' --rule 'in tcp 443' --wait",
          'hostctl firewall rules set web --rules-file rules.json',
        ),
    )
    .action(async (reference: string, options: RuleOptions, command: Command) => {
      if (!options.rule && !options.rulesFile)
        throw new UsageError('give the new rules with --rule or --rules-file ([] in the file for none)');
      const rulesGiven = rulesFromOptions(options);
      const { api } = session(command);
      await writeRules(command, await resolveFirewallId(api, reference), rulesGiven, options);
    });

  withRuleOptions(
    rules.command('add').description('Add rules to a firewall, after the ones it has').argument('<firewall>', 'firewall id, or its name'),
  )
    .addHelpText('after', READ_MODIFY_WRITE + RULES_HELP + examples("hostctl firewall rules add web --rule 'in tcp 8080' --wait"))
    .action(async (reference: string, options: RuleOptions, command: Command) => {
      const added = rulesFromOptions(options);
      if (!added.length) throw new UsageError('give the rules to add with --rule or --rules-file');
      const { api } = session(command);
      const id = await resolveFirewallId(api, reference);
      await writeRules(command, id, [...(await currentRules(api, id)), ...added], options);
    });

  withRuleOptions(
    rules
      .command('delete')
      .description('Delete rules from a firewall: those with the same direction, protocol, port and addresses')
      .argument('<firewall>', 'firewall id, or its name'),
  )
    .addHelpText('after', READ_MODIFY_WRITE + RULES_HELP + examples("hostctl firewall rules delete web --rule 'in tcp 8080'"))
    .action(async (reference: string, options: RuleOptions, command: Command) => {
      const deleted = rulesFromOptions(options);
      if (!deleted.length) throw new UsageError('give the rules to delete with --rule or --rules-file');
      const { api } = session(command);
      const id = await resolveFirewallId(api, reference);
      const before = await currentRules(api, id);
      const missing = deleted.filter((rule) => !before.some((r) => sameRule(r, rule)));
      if (missing.length)
        throw new NotFoundError(
          `firewall ${reference} has no rule ${missing.map((r) => `"${ruleText(r)}"`).join(', ')} ("hostctl firewall rules list ${reference}" shows them)`,
        );
      await writeRules(
        command,
        id,
        before.filter((r) => !deleted.some((rule) => sameRule(r, rule))),
        options,
      );
    });

  return rules;
}

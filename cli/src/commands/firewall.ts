import { Command, Option } from 'commander';
import { HostingClient, listAll, unwrap } from '@hosting-account/sdk';
import { collect, examples, parsePositiveInt, session } from '../command-context';
import { resolveFirewallId } from '../firewall-ref';
import { RULES_HELP, rulesFromOptions } from '../firewall-rule-text';
import { printDone, printList } from '../output';
import { resolveServiceIds } from '../service-ref';
import { firewallRulesCommand } from './firewall-rules';
import { FIREWALL_COLUMNS, showFirewall, waitEnforced } from './firewall-view';

const waitOption = () => new Option('--timeout <seconds>', 'give up waiting after this long').default(300).argParser(parsePositiveInt);

export function firewallCommand(): Command {
  const firewall = new Command('firewall')
    .alias('firewalls')
    .description('Cloud firewalls: rules for the traffic your VPSes receive and send, enforced at the hypervisor');

  firewall
    .command('create')
    .description('Create a firewall (apply it to VPSes with "hostctl firewall apply")')
    .requiredOption('--name <name>', 'a name, unique in your account')
    .option('--rule <rule>', 'a rule (see below); repeat for more', collect)
    .option('--rules-file <path>', 'rules from a JSON or YAML file ("-" for standard input)')
    .addHelpText(
      'after',
      RULES_HELP +
        examples(
          "hostctl firewall create --name web --rule 'in tcp 22' --rule 'in tcp 80' --rule 'in tcp 443' --rule 'in icmp'",
          "hostctl firewall create --name db --rule 'in tcp 5432 10.0.0.0/8,2001:db8::/32 # app servers'",
          'hostctl firewall create --name web --rules-file rules.yaml',
        ),
    )
    .action(async (options: { name: string; rule?: string[]; rulesFile?: string }, command: Command) => {
      const rules = rulesFromOptions(options);
      const { api, out } = session(command);
      await showFirewall(api, await unwrap(api.POST('/api/firewalls', { body: { name: options.name, rules } })), out);
    });

  firewall
    .command('list')
    .description('List firewalls, newest first, with how many VPSes each is applied to and whether they enforce it')
    .addHelpText('after', examples('hostctl firewall list', 'hostctl firewall list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      printList(await listAll(api, '/api/firewalls'), FIREWALL_COLUMNS, out);
    });

  firewall
    .command('get')
    .description('Show a firewall: its rules, and each VPS it is applied to with its status (pending, applied or failed)')
    .argument('<firewall>', 'firewall id, or its name')
    .addHelpText('after', examples('hostctl firewall get web', 'hostctl firewall get web -o json > web.json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveFirewallId(api, reference);
      await showFirewall(api, await unwrap(api.GET('/api/firewalls/{id}', { params: { path: { id } } })), out);
    });

  firewall.addCommand(firewallRulesCommand());

  firewall
    .command('rename')
    .description('Rename a firewall')
    .argument('<firewall>', 'firewall id, or its name')
    .argument('<new-name>', 'the new name, unique in your account')
    .addHelpText('after', examples('hostctl firewall rename web web-and-mail'))
    .action(async (reference: string, name: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveFirewallId(api, reference);
      const renamed = await unwrap(api.PATCH('/api/firewalls/{id}', { params: { path: { id } }, body: { name } }));
      printDone(`Firewall ${reference} renamed to ${renamed.name}`, renamed, out);
    });

  firewall
    .command('delete')
    .description('Delete a firewall applied to no VPS (remove it from its VPSes first)')
    .argument('<firewall>', 'firewall id, or its name')
    .addHelpText('after', examples('hostctl firewall delete web'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveFirewallId(api, reference);
      await unwrap(api.DELETE('/api/firewalls/{id}', { params: { path: { id } } }));
      printDone(`Firewall ${reference} deleted`, { id, deleted: true }, out);
    });

  firewall
    .command('apply')
    .description('Apply a firewall to VPSes: their hypervisor enforces its rules within seconds')
    .argument('<firewall>', 'firewall id, or its name')
    .argument('<vps...>', 'service ids of the VPSes, or their names')
    .option('--wait', 'wait until each of these VPSes enforces the rules (exit code 1 if that takes longer than --timeout)')
    .addOption(waitOption())
    .addHelpText(
      'after',
      '\nA VPS in user networking (reached through a forwarded SSH port) cannot have a firewall: 409 unsupported_network_mode.\n' +
        examples('hostctl firewall apply web web-01 --wait', 'hostctl firewall apply web web-01 web-02 4f0c2a8e-...'),
    )
    .action(async (reference: string, vps: string[], options: { wait?: boolean; timeout: number }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveFirewallId(api, reference);
      const named = await vpsByReference(api, vps);
      const serviceIds = [...named.keys()];
      let applied = await unwrap(api.POST('/api/firewalls/{id}/apply', { params: { path: { id } }, body: { serviceIds } }));
      if (options.wait) applied = await waitEnforced(api, applied, options.timeout, serviceIds);
      const status = new Map(applied.appliedTo.map((a) => [a.serviceId, a.status]));
      const each = serviceIds.map((serviceId) => `${named.get(serviceId)} (${status.get(serviceId)})`);
      printDone(`Firewall ${applied.name} applied to ${each.join(', ')}`, applied, out);
    });

  firewall
    .command('remove')
    .description('Remove a firewall from VPSes (a VPS left with no firewall lets every packet through)')
    .argument('<firewall>', 'firewall id, or its name')
    .argument('<vps...>', 'service ids of the VPSes, or their names')
    .addHelpText('after', examples('hostctl firewall remove web web-01', 'hostctl firewall remove web web-01 web-02 -o json'))
    .action(async (reference: string, vps: string[], _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveFirewallId(api, reference);
      const named = await vpsByReference(api, vps);
      const serviceIds = [...named.keys()];
      const removed = await unwrap(api.POST('/api/firewalls/{id}/remove', { params: { path: { id } }, body: { serviceIds } }));
      printDone(`Firewall ${removed.name} removed from ${[...named.values()].join(', ')}`, removed, out);
    });

  return firewall;
}

/** The VPSes named on the command line, by id, each once, with the reference it was given by. */
async function vpsByReference(api: HostingClient, references: string[]): Promise<Map<string, string>> {
  const ids = await resolveServiceIds(api, references, 'vps');
  const named = new Map<string, string>();
  ids.forEach((id, i) => named.has(id) || named.set(id, references[i]));
  return named;
}

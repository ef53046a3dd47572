import { Command } from 'commander';
import { HostingClient, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { Column, printObject } from '../output';
import { resolveServiceId } from '../service-ref';

type Address = Schemas['InstanceAddressResponse'];

const FIELDS: Column<Address>[] = [
  { header: 'IP', value: (a) => a.ip },
  { header: 'PTR', value: (a) => a.ptr },
];

function setPtr(api: HostingClient, id: string, ip: string, ptr: string | null) {
  return unwrap(api.PUT('/api/services/{id}/instance/rdns', { params: { path: { id } }, body: { ip, ptr } }));
}

/** `hostctl vps rdns set|reset`: what a VPS's public address resolves back to (its PTR). */
export function rdnsCommand(): Command {
  const rdns = new Command('rdns').description("Reverse DNS (PTR) of your VPSes' addresses; services get shows them");

  rdns
    .command('set')
    .description('Set what one of the VPS’s addresses resolves back to')
    .argument('<vps>', 'service id of the VPS, or its name')
    .argument('<ip>', 'one of its public addresses (services get shows them)')
    .argument('<ptr>', 'a host name, e.g. mail.example.com')
    .addHelpText(
      'after',
      '\nGive the name an A (or AAAA) record pointing to the same address, so the two confirm each other.\n' +
        examples(
          'hostctl vps rdns set web-01 203.0.113.10 mail.example.com',
          'hostctl vps rdns set web-01 2001:db8::10 mail.example.com -o json',
        ),
    )
    .action(async (reference: string, ip: string, ptr: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      printObject(await setPtr(api, id, ip, ptr), FIELDS, out);
    });

  rdns
    .command('reset')
    .description('Give one of the VPS’s addresses its default PTR back (<hostname>.<provider domain>, or none)')
    .argument('<vps>', 'service id of the VPS, or its name')
    .argument('<ip>', 'one of its public addresses')
    .addHelpText('after', examples('hostctl vps rdns reset web-01 203.0.113.10'))
    .action(async (reference: string, ip: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      printObject(await setPtr(api, id, ip, null), FIELDS, out);
    });
  return rdns;
}

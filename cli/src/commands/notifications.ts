import { Command, Option } from 'commander';
import { toYaml } from '../yaml';
import { HostingClient, listAll, notificationEvents, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, parsePositiveInt, session } from '../command-context';
import { UsageError } from '../errors';
import { asFields, Column, format, paint, printDone, printList, printObject } from '../output';

type Notification = Schemas['NotificationResponse'];

const COLUMNS: Column<Notification>[] = [
  { header: 'ID', value: (n) => n.id },
  { header: 'SEVERITY', value: (n) => n.severity, status: true },
  { header: 'TYPE', value: (n) => n.type },
  { header: 'TITLE', value: (n) => n.title },
  { header: 'READ', value: (n) => (n.readAt ? 'yes' : 'no') },
  { header: 'CREATED', value: (n) => n.createdAt },
];

/** How long `watch` waits before following the stream again after the server ended it. */
const RECONNECT_MS = 2_000;

export function notificationsCommand(): Command {
  const notifications = new Command('notifications').description('Notifications about your services, tickets and keys');

  notifications
    .command('list')
    .description('List notifications, newest first')
    .option('--unread', 'only unread notifications')
    .addHelpText('after', examples('hostctl notifications list --unread', 'hostctl notifications list -o json'))
    .action(async (options: { unread?: boolean }, command: Command) => {
      const { api, out } = session(command);
      printList(await listAll(api, '/api/notifications', options.unread ? { unread: 'true' } : {}), COLUMNS, out);
    });

  notifications
    .command('read')
    .description('Mark a notification, or all of them, as read')
    .argument('[id]', 'notification id')
    .option('--all', 'mark every notification as read')
    .addHelpText('after', examples('hostctl notifications read 0b5e...', 'hostctl notifications read --all'))
    .action(async (id: string | undefined, options: { all?: boolean }, command: Command) => {
      if (Boolean(id) === Boolean(options.all)) throw new UsageError('give a notification id or --all');
      const { api, out } = session(command);
      if (options.all) {
        const result = await unwrap(api.POST('/api/notifications/read-all'));
        return printDone(`${result.updated} notification(s) marked as read`, result, out);
      }
      const notification = await unwrap(api.POST('/api/notifications/{id}/read', { params: { path: { id: id! } } }));
      printObject(notification, asFields(COLUMNS), out);
    });

  notifications
    .command('watch')
    .description('Follow new notifications as they arrive (Server-Sent Events) until Ctrl-C')
    .addOption(new Option('--limit <count>', 'stop after this many notifications').argParser(parsePositiveInt))
    .addHelpText(
      'after',
      '\nWith -o json, every notification is one line of JSON.\n' +
        examples('hostctl notifications watch', 'hostctl notifications watch -o json | jq -r .title'),
    )
    .action(async (options: { limit?: number }, command: Command) => {
      const { api, out } = session(command);
      await watch(api, format(out), options.limit);
    });
  return notifications;
}

async function watch(api: HostingClient, kind: ReturnType<typeof format>, limit?: number): Promise<void> {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  let seen = 0;
  if (kind === 'table' && process.stderr.isTTY) process.stderr.write('Watching notifications; Ctrl-C to stop.\n');
  while (!stop.signal.aborted) {
    try {
      for await (const { event, data } of notificationEvents(api, { signal: stop.signal })) {
        if (event !== 'notification') continue;
        print(data as Notification, kind);
        if (limit && ++seen >= limit) return stop.abort();
      }
    } catch (error) {
      if (stop.signal.aborted) return;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

function print(notification: Notification, kind: ReturnType<typeof format>): void {
  if (kind === 'json') return void process.stdout.write(JSON.stringify(notification) + '\n');
  if (kind === 'yaml') return void process.stdout.write(`---\n${toYaml(notification)}`);
  const severity =
    notification.severity === 'critical'
      ? paint(notification.severity, 'red')
      : notification.severity === 'warning'
        ? paint(notification.severity, 'yellow')
        : notification.severity;
  process.stdout.write(
    `${notification.createdAt}  ${severity}  ${notification.title}${notification.body ? ` - ${notification.body}` : ''}\n`,
  );
}

import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { uploadAttachments } from '../attachments';
import { examples, session } from '../command-context';
import { UsageError } from '../errors';
import { Column, format, paint, printData, printList, printObject } from '../output';
import { resolveTicketId } from '../refs';
import { resolveServiceId } from '../service-ref';

type Ticket = Schemas['TicketResponse'];
type TicketWithMessages = Schemas['TicketWithMessagesResponse'];

const COLUMNS: Column<Ticket>[] = [
  { header: 'ID', value: (t) => t.id },
  { header: 'REFERENCE', value: (t) => t.reference },
  { header: 'SUBJECT', value: (t) => t.subject },
  { header: 'STATUS', value: (t) => t.status, status: true },
  { header: 'PRIORITY', value: (t) => t.priority },
  { header: 'DEPARTMENT', value: (t) => t.department },
  { header: 'REPLIES', value: (t) => t.replyCount },
  { header: 'UPDATED', value: (t) => t.updatedAt },
];

const FIELDS: Column<Ticket>[] = [
  { header: 'ID', value: (t) => t.id },
  { header: 'Reference', value: (t) => t.reference },
  { header: 'Subject', value: (t) => t.subject },
  { header: 'Status', value: (t) => t.status, status: true },
  { header: 'Priority', value: (t) => t.priority },
  { header: 'Department', value: (t) => t.department },
  { header: 'Service', value: (t) => t.serviceId },
  { header: 'Created', value: (t) => t.createdAt },
  { header: 'Last reply', value: (t) => t.lastReplyAt },
  { header: 'Closed', value: (t) => t.closedAt },
];

const ticketArgument = 'ticket id, or its reference (T-000001)';
const collect = (value: string, previous: string[] = []) => [...previous, value];

export function ticketsCommand(): Command {
  const tickets = new Command('tickets').description('Support tickets');

  tickets
    .command('create')
    .description('Open a support ticket')
    .requiredOption('--subject <text>', 'short summary (1 to 200 characters)')
    .option('--message <text>', 'the first message')
    .option('--message-file <path>', 'read the first message from a file ("-" for standard input)')
    .addOption(new Option('--priority <priority>', 'how urgent it is').choices(['low', 'medium', 'high']))
    .addOption(new Option('--department <department>', 'who should answer').choices(['general', 'billing', 'technical', 'abuse']))
    .option('--service <id>', 'the service the ticket is about (its id or name)')
    .option('--attach <file>', 'attach a file (png, jpeg, gif, pdf, txt, log, zip; up to 10 MiB; repeat for up to 5)', collect)
    .addHelpText(
      'after',
      examples(
        'hostctl tickets create --subject "web-1 unreachable" --message "Since 10:00 UTC." --department technical',
        'hostctl tickets create --subject "Kernel panic" --message-file report.txt --attach dmesg.log --attach screen.png',
      ),
    )
    .action(async (options: CreateOptions, command: Command) => {
      const message = messageFrom(options);
      const { api, out } = session(command);
      const serviceId = options.service === undefined ? undefined : await resolveServiceId(api, options.service);
      const attachmentIds = await uploadAttachments(api, options.attach ?? []);
      const ticket = await unwrap(
        api.POST('/api/support/tickets', {
          body: {
            subject: options.subject,
            message,
            priority: options.priority,
            department: options.department,
            serviceId,
            attachmentIds: attachmentIds.length ? attachmentIds : undefined,
          },
        }),
      );
      showTicket(ticket, out);
    });

  tickets
    .command('list')
    .description('List support tickets, most recently created first')
    .addOption(new Option('--status <status>', 'only tickets in this state').choices(['open', 'answered', 'customer_reply', 'closed']))
    .addHelpText('after', examples('hostctl tickets list', 'hostctl tickets list --status answered -o json'))
    .action(async (options: { status?: Ticket['status'] }, command: Command) => {
      const { api, out } = session(command);
      printList(await listAll(api, '/api/support/tickets', { status: options.status }), COLUMNS, out);
    });

  tickets
    .command('get')
    .alias('show')
    .description('Show a ticket with its messages')
    .argument('<ticket>', ticketArgument)
    .addHelpText('after', examples('hostctl tickets get T-000001', 'hostctl tickets get 7a1f...'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveTicketId(api, reference);
      showTicket(await unwrap(api.GET('/api/support/tickets/{id}', { params: { path: { id } } })), out);
    });

  tickets
    .command('reply')
    .description('Reply to a ticket')
    .argument('<ticket>', ticketArgument)
    .option('--message <text>', 'the reply')
    .option('--message-file <path>', 'read the reply from a file ("-" for standard input)')
    .option('--attach <file>', 'attach a file (repeat for up to 5)', collect)
    .addHelpText(
      'after',
      examples(
        'hostctl tickets reply T-000001 --message "It is back, thank you."',
        'hostctl tickets reply T-000001 --message-file - --attach trace.txt < notes.txt',
      ),
    )
    .action(async (reference: string, options: Omit<CreateOptions, 'subject'>, command: Command) => {
      const message = messageFrom(options);
      const { api, out } = session(command);
      const id = await resolveTicketId(api, reference);
      const attachmentIds = await uploadAttachments(api, options.attach ?? []);
      const reply = await unwrap(
        api.POST('/api/support/tickets/{id}/reply', {
          params: { path: { id } },
          body: { message, attachmentIds: attachmentIds.length ? attachmentIds : undefined },
        }),
      );
      if (format(out) !== 'table') return printData(reply, format(out));
      process.stdout.write(`Reply ${reply.id} added to ticket ${id}\n`);
    });

  tickets
    .command('close')
    .description('Close a ticket (closing a closed ticket changes nothing)')
    .argument('<ticket>', ticketArgument)
    .addHelpText('after', examples('hostctl tickets close T-000001'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveTicketId(api, reference);
      printObject(await unwrap(api.POST('/api/support/tickets/{id}/close', { params: { path: { id } } })), FIELDS, out);
    });
  return tickets;
}

interface CreateOptions {
  subject: string;
  message?: string;
  messageFile?: string;
  priority?: Ticket['priority'];
  department?: Ticket['department'];
  service?: string;
  attach?: string[];
}

function messageFrom(options: { message?: string; messageFile?: string }): string {
  if (options.message !== undefined && options.messageFile !== undefined)
    throw new UsageError('give either --message or --message-file, not both');
  if (options.messageFile !== undefined) {
    try {
      return readFileSync(options.messageFile === '-' ? 0 : options.messageFile, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${options.messageFile}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
  }
  if (options.message === undefined) throw new UsageError('a message is required: --message <text> or --message-file <path>');
  return options.message;
}

function showTicket(ticket: TicketWithMessages, out: { output?: string; header?: boolean }): void {
  if (format(out) !== 'table') return printData(ticket, format(out));
  printObject(ticket, FIELDS, out);
  for (const message of ticket.messages) {
    process.stdout.write(
      `\n${paint(`${message.author.name} (${message.author.type}), ${message.createdAt}`, 'bold')}\n${message.message}\n`,
    );
    for (const file of message.attachments)
      process.stdout.write(`  attachment: ${file.filename} (${file.contentType}, ${file.size} bytes) ${file.downloadUrl}\n`);
  }
}

import { request as httpRequest, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SseEvent {
  event: string;
  data: any;
}

export interface SseClient {
  events: SseEvent[];
  raw: () => string;
  next(event: string, timeoutMs?: number): Promise<SseEvent>;
  /** The next `event` whose data `matches` (a stream may repeat an unchanged count, as after LISTEN reconnects). */
  nextWhere(event: string, matches: (data: any) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
  response: IncomingMessage;
}

/** The complete events at the start of `buffer` (comments and blocks without data skipped), and what is left of it. */
export function takeSseEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  let end: number;
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data !== undefined) events.push({ event, data: JSON.parse(data) });
  }
  return { events, rest: buffer };
}

/** A minimal EventSource over node:http, with the bearer header browsers' EventSource cannot send. */
export function openSse(server: { address(): AddressInfo | string | null }, path: string, authorization: string): Promise<SseClient> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { Authorization: authorization, Accept: 'text/event-stream' } },
      (res) => {
        const events: SseEvent[] = [];
        let buffer = '';
        let raw = '';
        const waiters: (() => void)[] = [];
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          raw += chunk;
          const taken = takeSseEvents(buffer + chunk);
          buffer = taken.rest;
          events.push(...taken.events);
          waiters.splice(0).forEach((wake) => wake());
        });
        let seen = 0;
        const client: SseClient = {
          events,
          raw: () => raw,
          response: res,
          close: () => req.destroy(),
          next(event, timeoutMs = 5000) {
            return client.nextWhere(event, () => true, timeoutMs);
          },
          nextWhere(event, matches, timeoutMs = 5000) {
            return new Promise((resolveNext, rejectNext) => {
              const timer = setTimeout(
                () => rejectNext(new Error(`no matching "${event}" event within ${timeoutMs} ms; got ${JSON.stringify(events)}`)),
                timeoutMs,
              );
              const check = () => {
                const index = events.findIndex((e, i) => i >= seen && e.event === event && matches(e.data));
                if (index >= 0) {
                  seen = index + 1;
                  clearTimeout(timer);
                  resolveNext(events[index]);
                } else waiters.push(check);
              };
              check();
            });
          },
        };
        resolve(client);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

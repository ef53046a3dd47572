import type { HostingClient } from './client';
import { HostingApiError } from './errors';
import type { components } from './schema';

/** One event of `GET /api/notifications/stream`: a new notification, or the unread count. */
export type NotificationEvent =
  | { event: 'notification'; data: components['schemas']['NotificationResponse'] }
  | { event: 'unread-count'; data: { count: number } }
  | { event: string; data: unknown };

/**
 * Follows the notification stream (Server-Sent Events) until `signal` is aborted or the server
 * ends it (a `shutdown` event: reconnect after a moment). Uses fetch rather than `EventSource`,
 * which cannot send the `Authorization` header.
 *
 *     for await (const { event, data } of notificationEvents(client, { signal })) console.log(event, data);
 */
export async function* notificationEvents(
  client: HostingClient,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<NotificationEvent, void, undefined> {
  const { data, error, response } = await client.GET('/api/notifications/stream', {
    parseAs: 'stream',
    signal: options.signal,
    headers: { Accept: 'text/event-stream' },
  });
  if (!response.ok || !data) throw new HostingApiError(response, error);
  const reader = (data as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): NotificationEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  const text = data.join('\n');
  try {
    return { event, data: JSON.parse(text) };
  } catch {
    return { event, data: text };
  }
}

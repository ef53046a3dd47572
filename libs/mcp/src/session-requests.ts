import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type RequestId = string | number;

/** The bytes one answer may take: the OpenAPI document (about 1 MB) fits; a runaway result gets an error instead. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * The JSON-RPC requests of one session from their arrival to their answer, and the size of each
 * answer. The transport routes an answer to its HTTP request by the request's id: a second request
 * with the id of one still running takes its route over, and the first is never answered (its
 * client waits until it gives up), so such a request is refused at once instead.
 */
export class SessionRequests {
  private readonly unanswered = new Set<RequestId>();

  constructor(
    transport: Pick<Transport, 'send'>,
    private readonly maxAnswerBytes = MAX_ANSWER_BYTES,
  ) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(this.outgoing(message), options);
  }

  /** A request of the session is running (its answer has not been sent). */
  get busy(): boolean {
    return this.unanswered.size > 0;
  }

  /**
   * Notes a request the client sends (or the cancellation of one); the id it reuses when a request
   * of the session with that id has not been answered yet (the message is then not noted), else null.
   */
  admit(body: unknown): RequestId | null {
    const id = requestIdOf(body);
    if (id !== null) {
      if (this.unanswered.has(id)) return id;
      this.unanswered.add(id);
    }
    const cancelled = cancelledIdOf(body);
    // A cancelled request is never answered: its id is free again.
    if (cancelled !== null) this.unanswered.delete(cancelled);
    return null;
  }

  /** The transport refused the message (a 4xx): its request will never be answered. */
  refused(body: unknown): void {
    const id = requestIdOf(body);
    if (id !== null) this.unanswered.delete(id);
  }

  private outgoing(message: JSONRPCMessage): JSONRPCMessage {
    if (!('id' in message) || 'method' in message || message.id === undefined) return message;
    this.unanswered.delete(message.id);
    if (!('result' in message)) return message;
    const bytes = Buffer.byteLength(JSON.stringify(message));
    if (bytes <= this.maxAnswerBytes) return message;
    return {
      jsonrpc: '2.0',
      id: message.id,
      error: {
        code: -32000,
        message: `The answer would take ${bytes} bytes, over the ${this.maxAnswerBytes} one request may produce: ask for less (a smaller page).`,
      },
    };
  }
}

function requestIdOf(body: unknown): RequestId | null {
  if (!body || typeof body !== 'object' || !('method' in body) || !('id' in body)) return null;
  return typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
}

function cancelledIdOf(body: unknown): RequestId | null {
  if (!body || typeof body !== 'object' || !('method' in body) || body.method !== 'notifications/cancelled' || !('params' in body))
    return null;
  const params = body.params as { requestId?: unknown } | undefined;
  return typeof params?.requestId === 'string' || typeof params?.requestId === 'number' ? params.requestId : null;
}

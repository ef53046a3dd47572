import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SessionRequests } from './session-requests';

describe('SessionRequests', () => {
  function session(maxAnswerBytes?: number) {
    const sent: JSONRPCMessage[] = [];
    const transport = { send: async (message: JSONRPCMessage) => void sent.push(message) };
    return { requests: new SessionRequests(transport, maxAnswerBytes), send: transport.send, sent };
  }
  const call = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });

  it('refuses the id of a request not answered yet, and takes it again once answered', async () => {
    const { requests, send } = session();
    expect(requests.admit(call(7))).toBeNull();
    expect(requests.admit(call('7'))).toBeNull();
    expect(requests.admit(call(7))).toBe(7);
    await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    expect(requests.admit(call(7))).toBe(7);
    await send({ jsonrpc: '2.0', id: 7, result: {} });
    expect(requests.admit(call(7))).toBeNull();
    await send({ jsonrpc: '2.0', id: 7, error: { code: -1, message: 'no' } });
    expect(requests.admit(call(7))).toBeNull();
  });

  it('frees the id of a cancelled request (never answered) and of one the transport refused', () => {
    const { requests } = session();
    requests.admit(call(1));
    requests.admit({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    expect(requests.admit(call(1))).toBeNull();
    requests.refused(call(1));
    expect(requests.admit(call(1))).toBeNull();
    // Notifications, responses to the server and garbage are no requests.
    for (const body of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 1, result: {} }, 'x', null])
      expect([requests.admit(body), requests.admit(body)]).toEqual([null, null]);
  });

  it('answers an error instead of a result over the byte cap', async () => {
    const { requests, send, sent } = session(1000);
    requests.admit(call(1));
    await send({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(2000) } });
    await send({ jsonrpc: '2.0', id: 2, result: { text: 'small' } });
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32000,
          message: expect.stringMatching(/^The answer would take 20\d\d bytes, over the 1000 one request may produce/),
        },
      },
      { jsonrpc: '2.0', id: 2, result: { text: 'small' } },
    ]);
    expect(requests.admit(call(1))).toBeNull();
  });
});

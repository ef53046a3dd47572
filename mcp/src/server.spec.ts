import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { HostingClient } from '@hosting-account/sdk';
import { OPENAPI_URI } from './resources';
import { createMcpServer } from './server';
import { MCP_TOOLS } from './tools';

describe('createMcpServer', () => {
  async function connected(options: Parameters<typeof createMcpServer>[1]) {
    const server = createMcpServer({} as HostingClient, options);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'spec', version: '1' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    return { client, close: () => Promise.all([client.close(), server.close()]) };
  }

  it('serialises the OpenAPI document once, however often it is read, and serves JSON text as it is', async () => {
    const document = jest.fn(async () => ({ openapi: '3.1.0', paths: {} }));
    const { client, close } = await connected({ openApiDocument: document });
    const reads = await Promise.all([1, 2, 3].map(() => client.readResource({ uri: OPENAPI_URI })));
    expect(reads.map((r) => (r.contents[0] as { text: string }).text)).toEqual(Array(3).fill('{"openapi":"3.1.0","paths":{}}'));
    expect(document).toHaveBeenCalledTimes(1);
    await close();

    const text = await connected({ openApiDocument: async () => '{"openapi":"3.1.0"}' });
    expect(((await text.client.readResource({ uri: OPENAPI_URI })).contents[0] as { text: string }).text).toBe('{"openapi":"3.1.0"}');
    await text.close();
  });

  it('lists the same tool definitions to every server, over stdio (scopes unknown) as over HTTP', async () => {
    const [all, read] = [await connected({}), await connected({ scopes: ['read'] })];
    const listed = [(await all.client.listTools()).tools, (await read.client.listTools()).tools];
    expect(listed[0].map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    expect(listed[1]).toEqual(
      listed[0].filter((t) => t.annotations?.readOnlyHint && MCP_TOOLS.find((m) => m.name === t.name)!.scope === 'read'),
    );
    expect(listed[0].find((t) => t.name === 'activity_list')!.outputSchema).toMatchObject({
      properties: {
        data: {
          items: {
            properties: {
              userAgent: { anyOf: [{ type: 'string', description: expect.stringContaining('untrusted content') }, { type: 'null' }] },
            },
          },
        },
      },
    });
    await Promise.all([all.close(), read.close()]);
  });
});

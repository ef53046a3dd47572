import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_TOOLS } from './tools';
import { toolTable } from './tool-table';

describe("the package README's tool table", () => {
  it('is the one the definitions make (npm run mcp:tools prints it)', () => {
    const readme = readFileSync(join(__dirname, '../README.md'), 'utf8');
    const block = /<!-- mcp-tools:start -->\n([\s\S]*?)\n<!-- mcp-tools:end -->/.exec(readme)?.[1];
    expect(block).toBe(toolTable());
  });

  it('gives every tool a unique name, a scope and all three hints', () => {
    expect(new Set(MCP_TOOLS.map((tool) => tool.name)).size).toBe(MCP_TOOLS.length);
    for (const tool of MCP_TOOLS) {
      const { readOnlyHint, destructiveHint, idempotentHint } = tool.annotations;
      expect({ tool: tool.name, hints: [readOnlyHint, destructiveHint, idempotentHint].map((h) => typeof h) }).toEqual({
        tool: tool.name,
        hints: ['boolean', 'boolean', 'boolean'],
      });
      // A tool that changes something needs the write scope; one that only reads may still need it (it shows a secret).
      if (!readOnlyHint) expect({ tool: tool.name, scope: tool.scope }).toEqual({ tool: tool.name, scope: 'write' });
    }
  });
});

import { MCP_TOOLS } from './tools';

/** mcp/README.md's tool table, made from the definitions (`npm run mcp:tools`; a test keeps the README current). */
export function toolTable(): string {
  const rows = MCP_TOOLS.map((tool) => {
    const hints = tool.annotations.readOnlyHint
      ? 'read-only'
      : [
          tool.annotations.destructiveHint ? 'destructive' : 'not destructive',
          tool.annotations.idempotentHint ? 'idempotent' : 'not idempotent',
        ].join(', ');
    const description = tool.description.replace(/\|/g, '\\|');
    return `| \`${tool.name}\` | ${description} | ${tool.scope} | ${hints} |`;
  });
  return ['| Tool | What it does | Scope | Hints |', '|---|---|---|---|', ...rows].join('\n');
}

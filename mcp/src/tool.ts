import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { HostingClient } from '@hosting-account/sdk';
import type { Fence } from './untrusted';

/** The API key scope a tool's API calls need (`read`: GET; `write`: everything else, and GETs that hand out access). */
export type Scope = 'read' | 'write';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolContext {
  api: HostingClient;
  extra: ToolExtra;
  /** Time between polls while a tool waits for a VPS action. */
  pollMs: number;
  /** Fences what customers and third parties wrote, in a result the tool builds itself. */
  fence: Fence;
}

/**
 * One tool: its MCP definition, the scope the API asks for, and what it does with the SDK client.
 * `run` returns the structured result (the API's own JSON, secrets left out) or a `ToolResult`.
 */
export interface HostingTool<I extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  annotations: ToolAnnotations;
  input: I;
  output: z.ZodType<Record<string, unknown>>;
  run(args: z.infer<z.ZodObject<I>>, context: ToolContext): Promise<Record<string, unknown> | CallToolResult>;
}

export function defineTool<I extends z.ZodRawShape>(tool: HostingTool<I>): HostingTool {
  return tool as unknown as HostingTool;
}

/** A tool that only reads. */
export const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A tool that changes something: whether it can destroy data or work, and whether repeating it changes more. */
export function writes(hints: { destructive: boolean; idempotent: boolean }): ToolAnnotations {
  return { readOnlyHint: false, destructiveHint: hints.destructive, idempotentHint: hints.idempotent, openWorldHint: false };
}

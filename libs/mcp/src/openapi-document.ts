import { Injectable } from '@nestjs/common';

/**
 * The API's OpenAPI document for the MCP resource. The document is built from the running app
 * (apps/api), which hands its builder over at start; it is built on the first read and kept.
 */
@Injectable()
export class OpenApiDocumentSource {
  private build: (() => unknown) | null = null;
  private document: unknown = null;

  use(build: () => unknown): void {
    this.build = build;
    this.document = null;
  }

  async get(): Promise<unknown> {
    if (!this.build) throw new Error('The OpenAPI document is not available on this server.');
    this.document ??= this.build();
    return this.document;
  }
}

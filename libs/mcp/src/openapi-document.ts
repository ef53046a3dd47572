import { Injectable } from '@nestjs/common';

/**
 * The API's OpenAPI document for the MCP resource. The document is built from the running app
 * (apps/api), which hands its builder over at start; its JSON text is made on the first read and
 * kept, for every session of the process (about 1 MB: a read must not serialise it again).
 */
@Injectable()
export class OpenApiDocumentSource {
  private build: (() => unknown) | null = null;
  private text: string | null = null;

  use(build: () => unknown): void {
    this.build = build;
    this.text = null;
  }

  async get(): Promise<string> {
    if (!this.build) throw new Error('The OpenAPI document is not available on this server.');
    this.text ??= JSON.stringify(this.build());
    return this.text;
  }
}

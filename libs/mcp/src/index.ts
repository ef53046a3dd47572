export * from './mcp.module';
export { ClientRelay } from './client-relay';
export { OpenApiDocumentSource } from './openapi-document';

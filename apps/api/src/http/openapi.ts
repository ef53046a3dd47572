import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { addProblemExamples } from './openapi-problem-examples';
import { addCommonResponses, addIntegerFormats } from './openapi-responses';

export const API_TAGS: [string, string][] = [
  ['Auth', 'Accounts, logins and sessions.'],
  ['API Keys', "Long-lived keys for automation, with read/write scopes; each is one member's, on one account."],
  ['Members', 'The people of the account: their roles (owner, admin, member, read_only) and invitations.'],
  ['Products', 'The catalogue of plans and prices.'],
  ['Services', 'Services of the account: VPS instances and object storage.'],
  ['Images', 'Operating system images a VPS is built from.'],
  ['SSH Keys', 'Public keys for access to new servers.'],
  ['Firewalls', 'Cloud firewalls applied to VPSes at their hypervisor: inbound allowed only where a rule says so.'],
  ['DNS', "Domains' zones and records on the provider's nameservers, served by PowerDNS."],
  ['Notifications', 'What happened in the account, with a live stream.'],
  ['Support', 'Support tickets, replies and attachments.'],
  ['Events', 'The account activity log: who did what, when, from where.'],
  ['Webhooks', 'Signed Standard Webhooks deliveries of the activity log to your endpoints.'],
];

/**
 * The document names no host (servers: `/`), so Swagger UI calls the origin it was loaded from,
 * whatever the address; PUBLIC_URL only makes the absolute URLs the API hands out.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Hosting account API')
    .setDescription(
      'The public HTTP API of the hosting customer account. Every operation takes `Authorization: Bearer <token>`, ' +
        'where the token is an access token from `/api/auth/login` or an API key (`hpk_...`). Errors are ' +
        '`application/problem+json` (RFC 9457) with a stable `code`.',
    )
    .setOpenAPIVersion('3.1.0')
    .setVersion('0.1.0')
    .setLicense('Proprietary', 'https://hosting.example/legal/api-terms')
    .addServer('/', 'This API wherever it is served (production, staging or local): the origin the document was loaded from')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT or API key',
        description:
          'An access token from /api/auth/login (a JWT signed with HS256, 15 minutes, following RFC 8725 best practices) or an API key (hpk_...).',
      },
      'bearer',
    );
  for (const [name, description] of API_TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  document.security = [];
  addCommonResponses(document);
  addProblemExamples(document);
  addIntegerFormats(document);
  return document;
}

/**
 * Swagger UI's page: its scripts and styles are files of this origin, and it calls only this
 * origin. The page's own markup carries inline styles (Swagger UI's template), so styles allow
 * 'unsafe-inline'; scripts never do. Images include data: URIs (Swagger UI's icons).
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function serveDocs(app: INestApplication, document: () => OpenAPIObject): void {
  app.use('/docs', (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    next();
  });
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Hosting account API',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
  });
}

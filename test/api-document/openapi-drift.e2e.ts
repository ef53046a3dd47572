import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../apps/api/src/http/openapi';
import { sharedTestApp, TestApp } from '../support/test-app';

/** The committed document is the API's reviewed artefact: any change to the API must show in it. */
describe('Committed OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => (t = await sharedTestApp()));

  it('equals the document the app generates (run `npm run openapi:export` after an API change)', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '../../apps/api/openapi.json'), 'utf8'));
    const generated = JSON.parse(JSON.stringify(buildOpenApiDocument(t.app)));
    expect(generated).toEqual(committed);
  });
});

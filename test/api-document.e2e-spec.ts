// The API document's suites in one Jest file (see test/account.e2e-spec.ts): the document and
// Swagger UI, the committed copy, the contract check of recorded responses, and contract fuzzing.
import './api-document/openapi.e2e';
import './api-document/openapi-drift.e2e';
import './api-document/contract.e2e';
import './api-document/fuzz.e2e';

// The API document's suites in one Jest file (see test/account/account.e2e-spec.ts): the document and
// Swagger UI, the committed copy, the contract check of recorded responses, and contract fuzzing.
import './openapi.e2e';
import './openapi-drift.e2e';
import './contract.e2e';
import './fuzz.e2e';

// The account's suites in one Jest file: one module graph and one shared app (sharedTestApp) for
// all of them, instead of a start of each per file. Run one with `-t`, e.g. `-t 'SSH keys'`.
import './account/auth.e2e';
import './account/auth-sessions.e2e';
import './account/auth-2fa.e2e';
import './account/bearer.e2e';
import './account/api-keys.e2e';
import './account/ssh-keys.e2e';
import './account/events.e2e';

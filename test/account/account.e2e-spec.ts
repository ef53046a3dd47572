// The account's suites in one Jest file: one module graph and one shared app (sharedTestApp) for
// all of them, instead of a start of each per file. Run one with `-t`, e.g. `-t 'SSH keys'`.
import './auth.e2e';
import './auth-sessions.e2e';
import './auth-2fa.e2e';
import './bearer.e2e';
import './api-keys.e2e';
import './ssh-keys.e2e';
import './events.e2e';

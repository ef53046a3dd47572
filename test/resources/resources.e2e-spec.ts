// The customer's resources' suites in one Jest file: one module graph and one shared app
// (sharedTestApp) for all of them. Run one with `-t`, e.g. `-t 'Support tickets'`.
import './products.e2e';
import './services.e2e';
import './services-instance.e2e';
import './images-rebuild.e2e';
import './support-tickets.e2e';
import './support-attachments.e2e';
import './notifications.e2e';
import './idempotency.e2e';
import './object-storage.e2e';

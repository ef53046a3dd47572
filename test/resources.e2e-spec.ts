// The customer's resources' suites in one Jest file: one module graph and one shared app
// (sharedTestApp) for all of them. Run one with `-t`, e.g. `-t 'Support tickets'`.
import './resources/products.e2e';
import './resources/services.e2e';
import './resources/services-instance.e2e';
import './resources/images-rebuild.e2e';
import './resources/support-tickets.e2e';
import './resources/support-attachments.e2e';
import './resources/notifications.e2e';
import './resources/idempotency.e2e';
import './resources/object-storage.e2e';

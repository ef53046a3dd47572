-- Benchmark data, in bulk, on a schema made by the API's own migrations (bench/run.js starts the
-- API once on the empty database first). Ids are md5-derived (shaped as version 4 UUIDs, which the
-- API's path validation wants), so every run has the same rows.
--
--   1,000 accounts; account 1 (bench-0001@example.test) is the big one:
--   10,000 of the 200,000 services and 5,000 of the ~10,000 notifications (1,000 of them unread).
-- API keys and sessions carry secrets made in JavaScript (CRC-32 checksums, JWTs): bench/run.js
-- inserts those after this script.

BEGIN;

CREATE FUNCTION pg_temp.bench_id(seed text) RETURNS uuid LANGUAGE sql IMMUTABLE
  AS $$ SELECT overlay(overlay(md5(seed) placing '4' from 13) placing '8' from 17)::uuid $$;

INSERT INTO accounts (id, email, name, password_hash, email_verified_at, created_at, updated_at)
SELECT pg_temp.bench_id('account-' || a),
       'bench-' || lpad(a::text, 4, '0') || '@example.test',
       'Bench customer ' || a,
       -- not a usable hash: the benchmark never logs in with a password
       'bench-no-login',
       timestamptz '2024-01-01 00:00:00+00' + a * interval '1 hour',
       timestamptz '2024-01-01 00:00:00+00' + a * interval '1 hour',
       timestamptz '2024-01-01 00:00:00+00' + a * interval '1 hour'
  FROM generate_series(1, 1000) a;

-- 200,000 services: numbers 1..10,000 belong to account 1, the rest spread over accounts 2..1000.
-- Products cycle through the catalogue (its migration seeded it), at their monthly price.
WITH catalogue AS (
  SELECT (row_number() OVER (ORDER BY p.position, p.id) - 1)::int AS i, p.id, p.type, pp.price, pp.currency
    FROM products p JOIN product_prices pp ON pp.product_id = p.id AND pp.billing_cycle = 'monthly'
), n AS (SELECT count(*)::int AS n FROM catalogue)
INSERT INTO services (id, account_id, product_id, name, type, status, price, currency, billing_cycle, next_due_date, created_at, updated_at)
SELECT pg_temp.bench_id('service-' || g),
       CASE WHEN g <= 10000 THEN pg_temp.bench_id('account-1') ELSE pg_temp.bench_id('account-' || (2 + g % 999)) END,
       c.id,
       CASE c.type WHEN 'vps' THEN 'web-' ELSE 'bucket-' END || lpad(g::text, 6, '0'),
       c.type,
       CASE g % 20 WHEN 0 THEN 'suspended' WHEN 1 THEN 'pending' WHEN 2 THEN 'cancelled' ELSE 'active' END,
       c.price,
       c.currency,
       'monthly',
       CASE WHEN g % 20 IN (1, 2) THEN NULL
            ELSE timestamptz '2026-08-01 00:00:00+00' + (g % 28) * interval '1 day' END,
       timestamptz '2026-06-01 00:00:00+00' - g * interval '17 seconds' - (g % 1000) * interval '1 millisecond',
       timestamptz '2026-06-01 00:00:00+00' - g * interval '17 seconds'
  FROM generate_series(1, 200000) g
  CROSS JOIN n
  JOIN catalogue c ON c.i = g % n.n;

-- Every VPS that is not pending has its machine.
INSERT INTO vps_instances (service_id, power_state, region, ipv4, ipv6, provider_ref)
SELECT s.id,
       CASE WHEN s.status = 'active' AND hashtext(s.id::text) % 5 <> 0 THEN 'running' ELSE 'stopped' END,
       (ARRAY['eu-central', 'eu-west', 'us-east', 'us-west', 'ap-south'])[1 + abs(hashtext(s.name)) % 5],
       '203.0.' || (abs(hashtext(s.id::text)) % 250) || '.' || (1 + abs(hashtext(s.name)) % 250),
       CASE WHEN abs(hashtext(s.id::text)) % 3 = 0 THEN NULL
            ELSE '2001:db8:' || to_hex(abs(hashtext(s.name)) % 65535) || '::1' END,
       'sim-' || s.id
  FROM services s
 WHERE s.type = 'vps' AND s.status <> 'pending';

-- Every object storage service that is not pending has its gateway user, settled (nothing for the
-- API's reconciliation to do); the active ones with a fresh usage reading (nothing to refresh).
INSERT INTO object_storage_users (service_id, region, quota_bytes, quota_objects, max_buckets, desired_version, applied_version,
                                  gateway_state, used_bytes, used_objects, bucket_count, usage_updated_at)
SELECT s.id, 'eu-central', 250000000000, 5000000, 100, 1, 1,
       CASE s.status WHEN 'suspended' THEN 'suspended' WHEN 'cancelled' THEN 'closed' ELSE 'active' END,
       CASE WHEN s.status = 'active' THEN abs(hashtext(s.id::text))::bigint * 37 END,
       CASE WHEN s.status = 'active' THEN abs(hashtext(s.name)) % 100000 END,
       CASE WHEN s.status = 'active' THEN 1 + abs(hashtext(s.name)) % 9 END,
       CASE WHEN s.status = 'active' THEN now() - (abs(hashtext(s.name)) % 600) * interval '1 second' END
  FROM services s
 WHERE s.type = 'object_storage' AND s.status <> 'pending';

-- Notifications: 5,000 for account 1 (the newest 1,000 unread), 5 for each other account (2 unread).
INSERT INTO notifications (id, account_id, type, severity, title, body, link, entity_type, entity_id, read_at, created_at)
SELECT pg_temp.bench_id('notification-' || g),
       CASE WHEN g <= 5000 THEN pg_temp.bench_id('account-1') ELSE pg_temp.bench_id('account-' || (2 + (g - 5001) / 5)) END,
       (ARRAY['ticket_replied', 'ticket_closed', 'instance_action_succeeded', 'instance_action_failed',
              'service_status_changed', 'api_key_created', 'api_key_expiring'])[1 + g % 7],
       CASE WHEN g % 7 = 3 THEN 'critical' WHEN g % 7 IN (4, 6) THEN 'warning' ELSE 'info' END,
       'Support replied to T-' || lpad(g::text, 6, '0'),
       'There is a new answer on your ticket "Disk full on web-' || lpad(g::text, 6, '0') || '".',
       CASE WHEN g % 4 = 0 THEN NULL ELSE '/api/support/tickets/' || pg_temp.bench_id('ticket-' || g) END,
       CASE WHEN g % 4 = 0 THEN NULL ELSE 'ticket' END,
       CASE WHEN g % 4 = 0 THEN NULL ELSE pg_temp.bench_id('ticket-' || g) END,
       CASE WHEN (g <= 5000 AND g <= 1000) OR (g > 5000 AND (g - 5001) % 5 < 2) THEN NULL
            ELSE timestamptz '2026-06-01 00:00:00+00' - g * interval '30 seconds' + interval '1 hour' END,
       timestamptz '2026-06-01 00:00:00+00' - g * interval '30 seconds'
  FROM generate_series(1, 5000 + 999 * 5) g;

COMMIT;

-- Provider-scale data (issue 30), in bulk, on a schema made by the API's own migrations.
-- bench/scale.js runs it after `SET bench.factor = '<f>'`; at factor 1:
--
--   100,000 accounts, 1,000,000 services (with their machines / gateway users), 10,000,000
--   activity entries (10% older than the 90-day retention), 5,000,000 notifications, 1,000,000
--   webhook deliveries with 1,500,000 attempts, 200,000 tickets; account 1 holds 1% of each
--   (10,000 services, 100,000 entries, 50,000 notifications, 10,000 deliveries on one endpoint,
--   2,000 tickets) and also 100 SSH keys, 99 API keys and 1,000 live sessions.
--
-- The lists' secondary indexes of the big tables are dropped first and built again at the end from
-- their own definitions (pg_indexes), which is much faster than keeping them row by row. Derived
-- tables stay right because every insert goes through the triggers that keep them
-- (service_counts, activity_counts, notification_counts, ticket_counts, webhook_delivery_counts).

CREATE FUNCTION pg_temp.bench_id(seed text) RETURNS uuid LANGUAGE sql IMMUTABLE
  AS $$ SELECT overlay(overlay(md5(seed) placing '4' from 13) placing '8' from 17)::uuid $$;
CREATE FUNCTION pg_temp.f() RETURNS float8 LANGUAGE sql STABLE AS $$ SELECT current_setting('bench.factor')::float8 $$;
CREATE FUNCTION pg_temp.n(full_size bigint) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT greatest(100, round(full_size * pg_temp.f()))::bigint $$;
-- Row g of a table of `total` rows: the first 1% belong to account 1, the others spread over 2..accounts.
CREATE FUNCTION pg_temp.owner(g bigint, total bigint) RETURNS bigint LANGUAGE sql STABLE
  AS $$ SELECT CASE WHEN g <= total / 100 THEN 1 ELSE 2 + g % (pg_temp.n(100000) - 1) END $$;

CREATE TEMP TABLE bench_dropped_indexes AS
SELECT i.indexname, i.indexdef
  FROM pg_indexes i
 WHERE i.schemaname = 'public'
   AND i.tablename IN ('services', 'activity_events', 'notifications', 'webhook_deliveries', 'webhook_delivery_attempts', 'tickets')
   AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname);
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT indexname FROM bench_dropped_indexes LOOP
    EXECUTE format('DROP INDEX %I', r.indexname);
  END LOOP;
END $$;

INSERT INTO accounts (id, email, name, password_hash, email_verified_at, created_at, updated_at)
SELECT pg_temp.bench_id('account-' || a),
       'bench-' || lpad(a::text, 6, '0') || '@example.test',
       'Bench customer ' || a,
       'bench-no-login',
       timestamptz '2024-01-01 00:00:00+00' + a * interval '1 minute',
       timestamptz '2024-01-01 00:00:00+00' + a * interval '1 minute',
       timestamptz '2024-01-01 00:00:00+00' + a * interval '1 minute'
  FROM generate_series(1, pg_temp.n(100000)) a;
CREATE TEMP TABLE bench_accounts AS SELECT a, pg_temp.bench_id('account-' || a) AS id FROM generate_series(1, pg_temp.n(100000)) a;
ALTER TABLE bench_accounts ADD PRIMARY KEY (a);

WITH catalogue AS (
  SELECT (row_number() OVER (ORDER BY p.position, p.id) - 1)::int AS i, p.id, p.type, pp.price, pp.currency
    FROM products p JOIN product_prices pp ON pp.product_id = p.id AND pp.billing_cycle = 'monthly'
), n AS (SELECT count(*)::int AS n FROM catalogue)
INSERT INTO services (id, account_id, product_id, name, type, status, price, currency, billing_cycle, next_due_date, created_at, updated_at)
SELECT pg_temp.bench_id('service-' || g), acc.id, c.id,
       CASE c.type WHEN 'vps' THEN 'web-' ELSE 'bucket-' END || lpad(g::text, 7, '0'),
       c.type,
       CASE g % 20 WHEN 0 THEN 'suspended' WHEN 1 THEN 'pending' WHEN 2 THEN 'cancelled' ELSE 'active' END,
       c.price, c.currency, 'monthly',
       CASE WHEN g % 20 IN (1, 2) THEN NULL ELSE timestamptz '2026-08-01 00:00:00+00' + (g % 28) * interval '1 day' END,
       timestamptz '2026-06-01 00:00:00+00' - g * interval '17 seconds' - (g % 1000) * interval '1 millisecond',
       timestamptz '2026-06-01 00:00:00+00' - g * interval '17 seconds'
  FROM generate_series(1, pg_temp.n(1000000)) g
  CROSS JOIN n
  JOIN catalogue c ON c.i = g % n.n
  JOIN bench_accounts acc ON acc.a = pg_temp.owner(g, pg_temp.n(1000000));

INSERT INTO vps_instances (service_id, power_state, region, ipv4, ipv6, provider_ref)
SELECT s.id,
       CASE WHEN s.status = 'active' AND hashtext(s.id::text) % 5 <> 0 THEN 'running' ELSE 'stopped' END,
       (ARRAY['eu-central', 'eu-west', 'us-east', 'us-west', 'ap-south'])[1 + abs(hashtext(s.name)) % 5],
       '203.0.' || (abs(hashtext(s.id::text)) % 250) || '.' || (1 + abs(hashtext(s.name)) % 250),
       NULL,
       'sim-' || s.id
  FROM services s
 WHERE s.type = 'vps' AND s.status <> 'pending';

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

-- Activity: spread over the last 100 days, so 10% is past the default 90-day retention. Account 1's
-- entries are about its first 100 services (1,000 each at factor 1).
INSERT INTO activity_events (account_id, action, entity_type, entity_id, actor_type, actor_id, actor_name, ip, user_agent, request_id,
                             status, details, created_at)
SELECT acc.id,
       (ARRAY['instance.stop', 'instance.start', 'instance.reboot', 'service.status_changed', 'ticket.reply', 'api_key.created',
              'ssh_key.create', 'webhook.update'])[1 + g % 8],
       CASE WHEN g % 8 < 4 THEN 'service' WHEN g % 8 = 4 THEN 'ticket' END,
       CASE WHEN g % 8 >= 5 THEN NULL
            WHEN acc.a = 1 THEN pg_temp.bench_id('service-' || (1 + g % 100))
            ELSE gen_random_uuid() END,
       'api_key', 'bench-key', 'Bench key', '203.0.113.' || (g % 250), 'bench/1.0', 'req-' || g,
       CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'succeeded' END,
       jsonb_build_object('n', g),
       now() - ((g * 7919) % pg_temp.n(10000000)) * (interval '100 days' / pg_temp.n(10000000))
  FROM generate_series(1, pg_temp.n(10000000)) g
  JOIN bench_accounts acc ON acc.a = pg_temp.owner(g, pg_temp.n(10000000));

-- Notifications: 10% unread.
INSERT INTO notifications (account_id, type, severity, title, body, link, entity_type, entity_id, read_at, created_at)
SELECT acc.id,
       (ARRAY['ticket_replied', 'ticket_closed', 'instance_action_succeeded', 'instance_action_failed',
              'service_status_changed', 'api_key_created'])[1 + g % 6],
       CASE WHEN g % 6 = 3 THEN 'critical' WHEN g % 6 = 4 THEN 'warning' ELSE 'info' END,
       'Support replied to T-' || lpad((g % 1000000)::text, 6, '0'),
       'There is a new answer on your ticket "Disk full on web-' || lpad((g % 1000000)::text, 6, '0') || '".',
       NULL, NULL, NULL,
       CASE WHEN g % 10 = 0 THEN NULL ELSE now() - (g % 100000) * interval '1 minute' + interval '1 minute' END,
       now() - ((g * 7919) % pg_temp.n(5000000)) * (interval '200 days' / pg_temp.n(5000000))
  FROM generate_series(1, pg_temp.n(5000000)) g
  JOIN bench_accounts acc ON acc.a = pg_temp.owner(g, pg_temp.n(5000000));

-- Webhooks: account 1 has one endpoint with all its deliveries; one in ten other accounts has one.
INSERT INTO webhook_endpoints (id, account_id, url, description, events, secret_sealed, created_at)
SELECT pg_temp.bench_id('endpoint-' || acc.a), acc.id, 'https://hooks.example.test/' || acc.a, 'bench', ARRAY['*'], 'bench-not-sealed',
       timestamptz '2025-01-01 00:00:00+00'
  FROM bench_accounts acc
 WHERE acc.a = 1 OR acc.a % 10 = 2;
CREATE TEMP TABLE bench_endpoints AS
SELECT row_number() OVER (ORDER BY acc.a) - 1 AS i, pg_temp.bench_id('endpoint-' || acc.a) AS id
  FROM bench_accounts acc WHERE acc.a % 10 = 2;
ALTER TABLE bench_endpoints ADD PRIMARY KEY (i);

INSERT INTO webhook_deliveries (id, endpoint_id, message_id, event_type, body, status, attempts, last_response_code, last_duration_ms,
                                last_attempt_at, next_attempt_at, retry_until, created_at)
SELECT pg_temp.bench_id('delivery-' || g),
       CASE WHEN g <= pg_temp.n(1000000) / 100 THEN pg_temp.bench_id('endpoint-1') ELSE e.id END,
       'msg_' || md5('delivery-' || g),
       'service.status_changed',
       '{"type":"service.status_changed","data":{"n":' || g || '}}',
       CASE WHEN g % 2 = 0 THEN 'succeeded' ELSE 'failed' END,
       1 + g % 2, CASE WHEN g % 2 = 0 THEN 200 ELSE 500 END, 40,
       now() - ((g * 7919) % pg_temp.n(1000000)) * (interval '25 days' / pg_temp.n(1000000)),
       NULL,
       now() + interval '3 days',
       now() - ((g * 7919) % pg_temp.n(1000000)) * (interval '25 days' / pg_temp.n(1000000)) - interval '1 minute'
  FROM generate_series(1, pg_temp.n(1000000)) g
  CROSS JOIN (SELECT count(*) AS n FROM bench_endpoints) ne
  JOIN bench_endpoints e ON e.i = g % ne.n;

INSERT INTO webhook_delivery_attempts (delivery_id, attempt, result, response_code, duration_ms, created_at)
SELECT d.id, k, CASE WHEN d.status = 'succeeded' AND k = d.attempts THEN 'succeeded' ELSE 'http_error' END,
       CASE WHEN d.status = 'succeeded' AND k = d.attempts THEN 200 ELSE 500 END, 40,
       d.created_at + k * interval '10 seconds'
  FROM webhook_deliveries d CROSS JOIN LATERAL generate_series(1, d.attempts) k;

INSERT INTO tickets (account_id, subject, status, priority, department, reply_count, created_at, updated_at)
SELECT acc.id, 'Disk full on web-' || lpad(g::text, 6, '0'),
       (ARRAY['open', 'answered', 'customer_reply', 'closed'])[1 + g % 4],
       (ARRAY['low', 'medium', 'high'])[1 + g % 3],
       (ARRAY['general', 'billing', 'technical', 'abuse'])[1 + g % 4],
       g % 5,
       now() - g * interval '13 minutes', now() - g * interval '13 minutes'
  FROM generate_series(1, pg_temp.n(200000)) g
  JOIN bench_accounts acc ON acc.a = pg_temp.owner(g, pg_temp.n(200000));

-- Account 1: the most SSH keys and API keys an account may have, and 1,000 live sessions.
INSERT INTO ssh_keys (account_id, name, public_key, fingerprint, type, bits, created_at)
SELECT pg_temp.bench_id('account-1'), 'key ' || k, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI' || md5('ssh-' || k) || ' bench',
       'SHA256:' || md5('ssh-' || k), 'ssh-ed25519', 256, now() - k * interval '1 hour'
  FROM generate_series(1, 100) k;
INSERT INTO api_keys (account_id, name, prefix, key_hash, scopes, created_at)
SELECT pg_temp.bench_id('account-1'), 'old key ' || k, 'hpk_old' || lpad(k::text, 5, '0'), md5('api-key-' || k) || md5('api-key-x' || k),
       ARRAY['read'], now() - k * interval '1 day'
  FROM generate_series(1, 99) k;
INSERT INTO sessions (account_id, created_at, expires_at)
SELECT CASE WHEN a <= 1000 THEN pg_temp.bench_id('account-1') ELSE pg_temp.bench_id('account-' || a) END,
       now() - a * interval '1 minute', now() + interval '30 days'
  FROM generate_series(1, pg_temp.n(100000)) a;

DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT indexdef FROM bench_dropped_indexes LOOP
    EXECUTE r.indexdef;
  END LOOP;
END $$;

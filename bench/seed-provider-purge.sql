-- What the scale scenario's purge phase consumes, put back before each run of it (bench/scale.js
-- runs this after bench/seed-provider.sql, and again on a reused database): the terminated
-- account (account 2 with half of account 1's share on top of its own, tickets about its
-- services) and the activity entries past the 90-day retention (10% of the entries, 1% of them
-- account 1's). Both are only added where missing, so the first run adds nothing.

CREATE FUNCTION pg_temp.bench_id(seed text) RETURNS uuid LANGUAGE sql IMMUTABLE
  AS $$ SELECT overlay(overlay(md5(seed) placing '4' from 13) placing '8' from 17)::uuid $$;
CREATE FUNCTION pg_temp.f() RETURNS float8 LANGUAGE sql STABLE AS $$ SELECT current_setting('bench.factor')::float8 $$;
CREATE FUNCTION pg_temp.n(full_size bigint) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT greatest(100, round(full_size * pg_temp.f()))::bigint $$;
CREATE FUNCTION pg_temp.owner(g bigint, total bigint) RETURNS bigint LANGUAGE sql STABLE
  AS $$ SELECT CASE WHEN g <= total / 100 THEN 1 ELSE 2 + g % (pg_temp.n(100000) - 1) END $$;

CREATE TEMP TABLE bench_missing AS
SELECT NOT EXISTS (SELECT 1 FROM services WHERE id = pg_temp.bench_id('terminated-service-1')) AS account_2,
       greatest(0, pg_temp.n(1000000) - (SELECT count(*) FROM activity_events WHERE created_at < now() - interval '90 days')) AS expired;

INSERT INTO accounts (id, email, name, password_hash, email_verified_at, created_at, updated_at)
SELECT pg_temp.bench_id('account-2'), 'bench-000002@example.test', 'Bench customer 2', 'bench-no-login', now(), now(), now()
  FROM bench_missing WHERE account_2
ON CONFLICT (id) DO NOTHING;

-- Its share, when it does not have it.
WITH catalogue AS (
  SELECT (row_number() OVER (ORDER BY p.position, p.id) - 1)::int AS i, p.id, p.type, pp.price, pp.currency
    FROM products p JOIN product_prices pp ON pp.product_id = p.id AND pp.billing_cycle = 'monthly'
), n AS (SELECT count(*)::int AS n FROM catalogue)
INSERT INTO services (id, account_id, product_id, name, type, status, price, currency, billing_cycle, created_at, updated_at)
SELECT pg_temp.bench_id('terminated-service-' || g), pg_temp.bench_id('account-2'), c.id, 'old-' || g, c.type, 'active', c.price,
       c.currency, 'monthly', now() - g * interval '1 minute', now() - g * interval '1 minute'
  FROM generate_series(1, pg_temp.n(1000000) / 200) g
  CROSS JOIN n
  JOIN catalogue c ON c.i = g % n.n
 WHERE (SELECT account_2 FROM bench_missing);
INSERT INTO activity_events (account_id, action, entity_type, entity_id, actor_type, status, created_at)
SELECT pg_temp.bench_id('account-2'), 'instance.stop', 'service', pg_temp.bench_id('terminated-service-' || (1 + g % 100)), 'system',
       'succeeded', now() - g * interval '1 minute'
  FROM generate_series(1, pg_temp.n(10000000) / 200) g
 WHERE (SELECT account_2 FROM bench_missing);
INSERT INTO notifications (account_id, type, severity, title, body, created_at)
SELECT pg_temp.bench_id('account-2'), 'service_status_changed', 'info', 'Service changed', 'Your service changed.', now() - g * interval '1 minute'
  FROM generate_series(1, pg_temp.n(5000000) / 200) g
 WHERE (SELECT account_2 FROM bench_missing);
INSERT INTO tickets (account_id, subject, service_id, created_at, updated_at)
SELECT pg_temp.bench_id('account-2'), 'About old-' || g, pg_temp.bench_id('terminated-service-' || g),
       now() - g * interval '1 hour', now() - g * interval '1 hour'
  FROM generate_series(1, pg_temp.n(200000) / 200) g
 WHERE (SELECT account_2 FROM bench_missing);

-- The expired entries, spread as the seed spreads them (account 1 gets its 1%).
INSERT INTO activity_events (account_id, action, entity_type, entity_id, actor_type, actor_id, actor_name, ip, user_agent, request_id,
                             status, details, created_at)
SELECT pg_temp.bench_id('account-' || pg_temp.owner(g, m.expired)),
       (ARRAY['instance.stop', 'instance.start', 'instance.reboot', 'service.status_changed'])[1 + g % 4],
       'service', gen_random_uuid(), 'api_key', 'bench-key', 'Bench key', '203.0.113.' || (g % 250), 'bench/1.0', 'req-old-' || g,
       'succeeded', jsonb_build_object('n', g),
       now() - interval '91 days' - (g % 100000) * interval '7 seconds'
  FROM bench_missing m CROSS JOIN LATERAL generate_series(1, m.expired) g;

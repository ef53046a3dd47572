'use strict';
// The bare baseline of the benchmark: plain node:http + pg, no framework. Per request it does
// the same work as the API on the benchmarked routes: reads the bearer header, checks an API
// key's CRC-32/base62 checksum, hashes it (SHA-256) and looks it up once on the unique index
// (or verifies an HS256 access token and checks its session row), runs the same SQL and writes
// the same JSON. bench/run.js checks that its bodies equal the API's byte for byte.
//
// Environment: PORT, DATABASE_URL, JWT_SECRET, DB_POOL_SIZE (10, as the API),
// DB_STATEMENT_TIMEOUT_MS (5000, as the API).
const http = require('node:http');
const { createHash, createSecretKey, randomUUID } = require('node:crypto');
const { crc32 } = require('node:zlib');
const { Pool } = require('pg');
const jwt = require('jsonwebtoken');

// ---- API keys: libs/api-keys/src/api-key-format.ts --------------------------------------------
const API_KEY_PREFIX = 'hpk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_SHAPE = /^hpk_[0-9A-Za-z]{38}$/;

function toBase62(value, width) {
  let out = '';
  let rest = value;
  do {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

function isWellFormedApiKey(key) {
  if (!KEY_SHAPE.test(key)) return false;
  const random = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + RANDOM_LENGTH);
  return toBase62(crc32(random) >>> 0, CHECKSUM_LENGTH) === key.slice(-CHECKSUM_LENGTH);
}

// ---- SQL: the same statements as the API -----------------------------------------------------
// libs/api-keys/src/api-key-verifier.ts
// ApiKeysRepository.findByHash: the key with its member and the member's login (teams).
const KEY_SQL = `SELECT k.id, k.name, k.account_id, k.scopes, k.expires_at, k.last_used_at, k.revoked_at, k.member_id, l.email,
        k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) AS live
        FROM api_keys k JOIN account_members m ON m.id = k.member_id JOIN accounts l ON l.id = m.login_id WHERE k.key_hash = $1`;
const TOUCH_SQL = `UPDATE api_keys SET last_used_at = now()
          WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`;
// libs/auth/src/sessions/sessions.service.ts isLive
// SessionsRepository.liveGrant: the live session with the login's membership of the account it acts on.
const SESSION_SQL = `SELECT m.id AS member_id, l.email FROM sessions s JOIN accounts l ON l.id = s.account_id
        JOIN account_members m ON m.account_id = coalesce(s.current_account_id, s.account_id) AND m.login_id = s.account_id
       WHERE s.id = $1 AND s.account_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()`;

// ServicesRepository.pageStatement in libs/services/src/services.repository.ts (bench/run.js compares this text with the built API's)
const isoText = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const SERVICE_COLUMNS = `s.id, s.product_id, s.name, s.type, s.status, s.price, s.currency, s.billing_cycle,
       ${isoText('s.next_due_date')} AS next_due_date, ${isoText('s.created_at')} AS created_at`;
// What each kind shows of the page, one statement per kind on it, side by side (VpsInstancesRepository.summaries,
// ObjectStorageUsersRepository.summaries); bench/run.js compares INSTANCES_SQL with the built API's INSTANCE_SUMMARIES_SQL.
const INSTANCES_SQL = `SELECT i.service_id AS id, i.power_state AS "powerState", i.region, i.ipv4, i.ipv6, i.ssh_host AS "sshHost", i.ssh_port AS "sshPort",
        s.status = 'terminated' AS terminated, ${isoText('b.next_run_at')} AS "backupsNextRunAt", s.name,
        i.network->>'mode' IS DISTINCT FROM 'user' AS "publicAddresses", p.ptrs,
        coalesce(h.state <> 'unreachable', true) AS "hostReachable", r.service_id IS NOT NULL AS rescue,
        kv.public_key AS "hostKey", kr.public_key AS "rescueHostKey",
        coalesce(f.firewalls, '[]') AS firewalls, coalesce(v.volumes, '[]') AS volumes
   FROM vps_instances i
   JOIN services s ON s.id = i.service_id
   LEFT JOIN vps_backup_schedules b ON b.service_id = i.service_id
   LEFT JOIN hosts h ON h.id = i.host_id
   LEFT JOIN vps_rescues r ON r.service_id = i.service_id
   LEFT JOIN vps_host_keys kv ON kv.service_id = i.service_id AND kv.system = 'vps'
   LEFT JOIN vps_host_keys kr ON kr.service_id = i.service_id AND kr.system = 'rescue'
   LEFT JOIN (SELECT service_id, json_object_agg(address, ptr) AS ptrs
                FROM vps_address_ptrs WHERE service_id = ANY($1::uuid[]) GROUP BY service_id) p ON p.service_id = i.service_id
   LEFT JOIN (SELECT a.service_id, json_agg(json_build_object('id', fw.id, 'name', fw.name, 'status', a.status) ORDER BY a.created_at, fw.id) AS firewalls
                FROM firewall_attachments a JOIN firewalls fw ON fw.id = a.firewall_id
               WHERE a.service_id = ANY($1::uuid[]) GROUP BY a.service_id) f ON f.service_id = i.service_id
   LEFT JOIN (SELECT vol.attached_to, json_agg(json_build_object('id', vol.service_id, 'name', vs.name, 'sizeGb', vol.size_gb, 'state', vol.state)
                                        ORDER BY vol.updated_at, vol.service_id) AS volumes
                FROM volumes vol JOIN services vs ON vs.id = vol.service_id
               WHERE vol.attached_to = ANY($1::uuid[]) GROUP BY vol.attached_to) v ON v.attached_to = i.service_id
  WHERE i.service_id = ANY($1::uuid[])`;
const STORAGE_SQL = `SELECT service_id AS id, CASE WHEN applied_version < desired_version THEN 'pending' ELSE gateway_state END AS state,
              used_bytes::float8 AS "usedBytes", used_objects::float8 AS objects, bucket_count AS buckets,
              quota_bytes::float8 AS "quotaBytes", quota_objects::float8 AS "quotaObjects", ${isoText('usage_updated_at')} AS "usageUpdatedAt"
         FROM object_storage_users WHERE service_id = ANY($1::uuid[])`;

// ServicesRepository.findForAccount, then the kind's summary of that one service (VpsInstancesRepository.summaries)
const SERVICE_SQL = `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.id = $1 AND s.account_id = $2`;
// GET .../instance/actions/{actionId}: the VPS's ownership (VpsOwnership), its instance row, then the action
// (InstanceActionsRepository.findForService, ACTION_COLUMNS)
const OWNED_SERVICE_SQL = 'SELECT id, account_id AS "accountId", name, type, status FROM services WHERE id = $1 AND account_id = $2 ';
const INSTANCE_STATE_SQL =
  'SELECT power_state AS "powerState", region, provider_ref AS "providerRef" FROM vps_instances WHERE service_id = $1';
const ACTION_SQL = `SELECT id, service_id, type, status, ${isoText('started_at')} AS started_at, ${isoText('finished_at')} AS finished_at,
       progress, step, error_code, error_message, notice_code, notice_message,
       params->'snapshot'->>'imageId' AS snapshot_image_id, result->>'consistency' AS consistency
       FROM instance_actions WHERE id = $1 AND service_id = $2`;

function listServicesQuery(accountId, filters, page) {
  const values = [accountId];
  const conditions = [];
  for (const column of ['type', 'status']) {
    const value = filters[column];
    if (value === undefined) continue;
    values.push(value);
    conditions.push(`AND ${column} = $${values.length}`);
  }
  const where = `account_id = $1 ${conditions.join(' ')}`;
  values.push(page.pageSize, ((BigInt(page.page) - 1n) * BigInt(page.pageSize)).toString());
  const limit = `$${values.length - 1}`;
  const offset = `$${values.length}::bigint`;
  const text = `
    WITH total AS (
      SELECT coalesce(sum(n), 0)::int AS total FROM service_counts WHERE ${where}
    ), page AS (
      SELECT id, created_at FROM services WHERE ${where}
       ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}
    )
    SELECT t.total, ${SERVICE_COLUMNS}
      FROM total t
      LEFT JOIN (page p JOIN services s ON s.id = p.id) ON true
     ORDER BY p.created_at DESC, p.id DESC`;
  return { text, values };
}

// libs/notifications/src/notifications.repository.ts
const NOTIFICATION_COLUMNS = 'id, type, severity, title, body, link, entity_type, entity_id, read_at, created_at';
const UNREAD_SQL = 'SELECT count(*)::int AS count FROM notifications WHERE account_id = $1 AND read_at IS NULL';
const MARK_READ_SQL = `UPDATE notifications SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND account_id = $2
       RETURNING ${NOTIFICATION_COLUMNS}, read_at = now() AS changed`;
// libs/notifications/src/stream/notification-hub.ts announce(): tells streams on every replica (only
// when the read changed the unread count, as notifications.service.ts markRead)
const ANNOUNCE_SQL = 'SELECT pg_notify($1, $2)';
const CHANNEL = 'account_notifications';

// libs/support/src/tickets/tickets.service.ts reply(): the ticket's owner, the author's name, then in
// one transaction the ticket's reply counters, the message and the activity entry
// (libs/events/src/activity.repository.ts), then the message and its attachments read back.
const TICKET_OWNED_SQL = 'SELECT id FROM tickets WHERE id = $1 AND account_id = $2';
const DISPLAY_NAME_SQL = 'SELECT id, name FROM accounts WHERE id = $1';
const RECORD_REPLY_SQL = `UPDATE tickets SET status = $2, reply_count = reply_count + 1, last_reply_at = now(), updated_at = now()
        WHERE id = $1 AND status <> 'closed' RETURNING reference, subject`;
const INSERT_MESSAGE_SQL = `INSERT INTO ticket_messages (ticket_id, author_type, author_name, message, author_member_id, author_email, author_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`;
const INSERT_ACTIVITY_SQL = `INSERT INTO activity_events (account_id, action, entity_type, entity_id, actor_type, actor_id, actor_name, ip, user_agent,
         request_id, status, details, actor_member_id, actor_email, actor_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15) RETURNING id`;
const MESSAGE_SQL = `SELECT id, ticket_id, author_type, author_name, message, created_at, author_member_id, author_email, author_key_id
        FROM ticket_messages WHERE id = $1`;
const ATTACHMENTS_SQL = 'SELECT id FROM attachments WHERE message_id = ANY($1::uuid[]) ORDER BY created_at, id';

module.exports = {
  ALPHABET,
  toBase62,
  isWellFormedApiKey,
  listServicesQuery,
  INSTANCES_SQL,
  KEY_SQL,
  SESSION_SQL,
  UNREAD_SQL,
  MARK_READ_SQL,
};

// ---- the server --------------------------------------------------------------------------------
const BEARER = /^Bearer ([\x21-\x7e]{1,4096})$/i;
// ParseUUIDPipe's 'all': versions 1-8 with the RFC variant, or the nil and max UUIDs
const UUID =
  /^(?:[0-9A-F]{8}-[0-9A-F]{4}-[1-8][0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}|00000000-0000-0000-0000-000000000000|FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF)$/i;
const INT = /^\d{1,16}$/;
const ISSUER = 'hosting-account-api';
const ALL_SCOPES = ['read', 'write'];
const LAST_USED_GRANULARITY_MS = 60_000;

function start() {
  const port = Number(process.env.PORT || 3002);
  if (!process.env.DATABASE_URL || !process.env.JWT_SECRET) throw new Error('DATABASE_URL and JWT_SECRET are required');
  // A KeyObject made once: given a string, jsonwebtoken first tries it as a PEM public key and
  // pays for the failure (about 0.4 ms here) on every verify.
  const jwtKey = createSecretKey(Buffer.from(process.env.JWT_SECRET));
  const statementTimeout = Number(process.env.DB_STATEMENT_TIMEOUT_MS ?? 5000);
  // The bench's second baseline for the list (issue 59): the contract's fields of each service and
  // nothing a kind adds, so the ratio against it shows what the kinds' parts cost.
  const contractFieldsOnly = process.env.BASELINE_LIST === 'contract';
  // The statements the API runs through poolQuery (libs/core/src/database/pool-query.ts) are named,
  // so prepared once per connection: the baseline names the same ones, to do the same work.
  const statementNames = new Map();
  const named = (text, values) => {
    let name = statementNames.get(text);
    if (!name) statementNames.set(text, (name = `b_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`));
    return pool.query({ name, text, values });
  };
  // The API's pool settings: libs/core/src/database/data-source-options.ts
  const pool = new Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DB_POOL_SIZE || 10),
    application_name: 'hosting-bench-baseline',
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30000,
    statement_timeout: statementTimeout || undefined,
    keepAlive: true,
  });
  pool.on('error', () => undefined);

  // lastUsedAt, as the API: batched, off the request path, at most once a minute per key.
  const touched = new Set();
  setInterval(() => {
    if (!touched.size) return;
    const ids = [...touched];
    touched.clear();
    pool.query(TOUCH_SQL, [ids]).catch(() => ids.forEach((id) => touched.add(id)));
  }, 5000).unref();

  async function authenticate(req) {
    const match = BEARER.exec(req.headers.authorization ?? '');
    if (!match) return null;
    const token = match[1];
    if (token.startsWith(API_KEY_PREFIX)) {
      if (!isWellFormedApiKey(token)) return null;
      const hash = createHash('sha256').update(token).digest('hex');
      const { rows } = await named(KEY_SQL, [hash]);
      const row = rows[0];
      if (!row || !row.live) return null;
      if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_GRANULARITY_MS) touched.add(row.id);
      return {
        accountId: row.account_id,
        scopes: row.scopes,
        kind: 'api_key',
        id: row.id,
        name: row.name,
        memberId: row.member_id,
        email: row.email,
      };
    }
    let claims;
    try {
      claims = jwt.verify(token, jwtKey, { algorithms: ['HS256'], issuer: ISSUER });
    } catch {
      return null;
    }
    if (typeof claims === 'string' || claims.typ !== 'access' || !claims.sub || typeof claims.sid !== 'string') return null;
    const { rows } = await named(SESSION_SQL, [claims.sid, claims.sub]);
    const grant = rows[0];
    return grant
      ? { accountId: claims.sub, scopes: ALL_SCOPES, kind: 'access_token', id: claims.sid, memberId: grant.member_id, email: grant.email }
      : null;
  }

  function send(res, status, body) {
    const json = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': status < 400 ? 'application/json; charset=utf-8' : 'application/problem+json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
    });
    res.end(json);
  }

  const problem = (res, status, code) => send(res, status, { status, code });

  function pageQuery(search) {
    const params = new URLSearchParams(search);
    const out = { page: 1, pageSize: 10 };
    for (const name of ['page', 'pageSize']) {
      const all = params.getAll(name);
      if (!all.length) continue;
      if (all.length > 1 || !INT.test(all[0])) return null;
      out[name] = Number(all[0]);
    }
    for (const name of params.keys()) if (name !== 'page' && name !== 'pageSize') return null;
    if (out.page < 1 || out.pageSize < 1 || out.pageSize > 100) return null;
    return out;
  }

  async function listServices(res, principal, search) {
    const page = pageQuery(search);
    if (!page) return problem(res, 400, 'invalid_input');
    const { text, values } = listServicesQuery(principal.accountId, {}, page);
    const { rows } = await named(text, values);
    const total = rows[0]?.total ?? 0;
    if (contractFieldsOnly)
      return send(res, 200, {
        data: contractFields(rows),
        page: page.page,
        pageSize: page.pageSize,
        total,
        totalPages: Math.ceil(total / page.pageSize),
      });
    const idsOf = (type) => rows.filter((row) => row.id !== null && row.type === type).map((row) => row.id);
    const [vps, storage] = [idsOf('vps'), idsOf('object_storage')];
    const [instances, stores] = await Promise.all([
      vps.length ? named(INSTANCES_SQL, [vps]).then((r) => r.rows) : [],
      storage.length ? named(STORAGE_SQL, [storage]).then((r) => r.rows) : [],
    ]);
    const instanceOf = new Map(instances.map((i) => [i.id, i]));
    const storeOf = new Map(stores.map((o) => [o.id, o]));
    const data = [];
    for (const row of rows) {
      if (row.id === null) continue;
      const i = instanceOf.get(row.id);
      const o = storeOf.get(row.id);
      data.push({
        ...contractItem(row),
        productId: row.product_id,
        currency: row.currency,
        createdAt: row.created_at,
        instance: instanceBody(i),
        objectStorage: o
          ? {
              state: o.state,
              usedBytes: o.usedBytes ?? null,
              objects: o.objects ?? null,
              buckets: o.buckets ?? null,
              quotaBytes: o.quotaBytes ?? 0,
              quotaObjects: o.quotaObjects ?? 0,
              usageUpdatedAt: o.usageUpdatedAt ?? null,
            }
          : null,
        // The bench's data holds no volume services (the API's part for them: VolumeKind).
        volume: null,
      });
    }
    send(res, 200, { data, page: page.page, pageSize: page.pageSize, total, totalPages: Math.ceil(total / page.pageSize) });
  }

  /** The contract's Service: id, name, type, status, price, billingCycle, nextDueDate (the API's body begins with them). */
  function contractItem(row) {
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      status: row.status,
      price: Number(row.price),
      billingCycle: row.billing_cycle,
      nextDueDate: row.next_due_date,
    };
  }

  function contractFields(rows) {
    return rows.filter((row) => row.id !== null).map(contractItem);
  }

  // libs/vps/src/service-kind/instance-part.ts, key for key
  function sshEndpoint(i, rescue) {
    const at = i.sshHost && i.sshPort ? { host: i.sshHost, port: Number(i.sshPort) } : i.ipv4 ? { host: i.ipv4, port: 22 } : null;
    if (!at) return null;
    const key = rescue ? i.rescueHostKey : i.hostKey;
    if (!key) return { ...at, hostKeys: [] };
    const fingerprint = `SHA256:${createHash('sha256')
      .update(Buffer.from(key.split(' ')[1] ?? '', 'base64'))
      .digest('base64')
      .replace(/=+$/, '')}`;
    const knownHosts = `${at.port === 22 ? at.host : `[${at.host}]:${at.port}`} ${key}`;
    return { ...at, hostKeys: [{ type: key.split(' ')[0], fingerprint, publicKey: key, knownHosts }] };
  }

  function instanceBody(i) {
    if (!i) return null;
    const rescue = !!i.rescue && !i.terminated;
    if (i.terminated)
      return {
        powerState: i.powerState,
        ipv4: null,
        ipv6: null,
        region: i.region ?? '',
        ssh: null,
        rescue,
        firewalls: [],
        volumes: [],
        addresses: [],
      };
    // The bench sets no DNS_DEFAULT_PTR_DOMAIN: an address without its owner's PTR has none.
    const addresses = i.publicAddresses === false ? [] : [i.ipv4, i.ipv6].filter(Boolean).map((ip) => ({ ip, ptr: i.ptrs?.[ip] ?? null }));
    return {
      powerState: i.powerState,
      rescue,
      ipv4: i.ipv4,
      ipv6: i.ipv6,
      region: i.region ?? '',
      ssh: sshEndpoint(i, rescue),
      firewalls: i.firewalls ?? [],
      volumes: (i.volumes ?? []).map((v) => ({ ...v, device: v.state === 'attaching' ? null : volumeDevice(v.id) })),
      addresses,
      ...(i.backupsNextRunAt && { backups: { enabled: true, nextRunAt: i.backupsNextRunAt } }),
      ...(i.hostReachable === false ? { hostReachable: false } : {}),
    };
  }

  // libs/vps/src/compute/volumes/volume-names.ts
  function volumeDevice(id) {
    return `/dev/disk/by-id/virtio-vol-${id.replace(/[^A-Za-z0-9]/g, '').slice(0, 16)}`;
  }

  function serviceBody(row, instance) {
    return {
      ...contractItem(row),
      productId: row.product_id,
      currency: row.currency,
      createdAt: row.created_at,
      instance: instanceBody(instance),
      objectStorage: null,
      volume: null,
    };
  }

  /** A VPS (the scenario's service); object storage's summary is not part of the baseline. */
  async function getService(res, principal, id) {
    if (!UUID.test(id)) return problem(res, 400, 'invalid_input');
    const row = (await pool.query(SERVICE_SQL, [id, principal.accountId])).rows[0];
    if (!row) return problem(res, 404, 'not_found');
    const instance = row.type === 'vps' ? (await named(INSTANCES_SQL, [[row.id]])).rows[0] : null;
    send(res, 200, serviceBody(row, instance));
  }

  async function getAction(res, principal, serviceId, actionId) {
    if (!UUID.test(serviceId) || !UUID.test(actionId)) return problem(res, 400, 'invalid_input');
    const service = (await pool.query(OWNED_SERVICE_SQL, [serviceId, principal.accountId])).rows[0];
    if (!service || service.type !== 'vps') return problem(res, 404, 'not_found');
    if (!(await pool.query(INSTANCE_STATE_SQL, [serviceId])).rows.length) return problem(res, 404, 'not_found');
    const a = (await pool.query(ACTION_SQL, [actionId, serviceId])).rows[0];
    if (!a) return problem(res, 404, 'not_found');
    send(res, 200, {
      id: a.id,
      serviceId: a.service_id,
      type: a.type,
      status: a.status,
      startedAt: a.started_at,
      finishedAt: a.finished_at,
      progress: a.progress,
      step: a.step,
      error: a.error_code ? { code: a.error_code, message: a.error_message ?? '' } : null,
      notice: a.notice_code ? { code: a.notice_code, message: a.notice_message ?? '' } : null,
      snapshot: a.snapshot_image_id ? { imageId: a.snapshot_image_id, consistency: a.consistency } : null,
    });
  }

  async function unreadCount(res, principal) {
    const { rows } = await named(UNREAD_SQL, [principal.accountId]);
    send(res, 200, { count: Number(rows[0].count) });
  }

  async function markRead(res, principal, id) {
    if (!UUID.test(id)) return problem(res, 400, 'invalid_input');
    const { rows } = await named(MARK_READ_SQL, [id, principal.accountId]);
    const row = rows[0];
    if (!row) return problem(res, 404, 'not_found');
    if (row.changed) {
      pool.query(ANNOUNCE_SQL, [CHANNEL, JSON.stringify({ accountId: principal.accountId, notificationId: null })]).catch(() => undefined);
    }
    send(res, 200, {
      id: row.id,
      type: row.type,
      severity: row.severity,
      title: row.title,
      body: row.body,
      link: row.link,
      entity: row.entity_type && row.entity_id ? { type: row.entity_type, id: row.entity_id } : null,
      readAt: row.read_at ? row.read_at.toISOString() : null,
      createdAt: row.created_at.toISOString(),
    });
  }

  function readJson(req) {
    return new Promise((resolve) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          resolve(null);
        }
      });
    });
  }

  async function replyToTicket(req, res, principal, ticketId) {
    if (!UUID.test(ticketId)) return problem(res, 400, 'invalid_input');
    const body = await readJson(req);
    const text = body && typeof body.message === 'string' ? body.message : null;
    if (!text || text.length > 64000 || Object.keys(body).some((k) => k !== 'message' && k !== 'attachmentIds')) {
      return problem(res, 400, 'invalid_input');
    }
    if (!(await pool.query(TICKET_OWNED_SQL, [ticketId, principal.accountId])).rows.length) return problem(res, 404, 'not_found');
    const author = (await pool.query(DISPLAY_NAME_SQL, [principal.accountId])).rows[0]?.name ?? 'Customer';
    const client = await pool.connect();
    let messageId;
    try {
      await client.query('BEGIN');
      const replied = await client.query(RECORD_REPLY_SQL, [ticketId, 'customer_reply']);
      if (!replied.rows.length) {
        await client.query('ROLLBACK');
        return problem(res, 409, 'ticket_closed');
      }
      const keyId = principal.kind === 'api_key' ? principal.id : null;
      messageId = (await client.query(INSERT_MESSAGE_SQL, [ticketId, 'customer', author, text, principal.memberId, principal.email, keyId]))
        .rows[0].id;
      const actor =
        principal.kind === 'api_key'
          ? ['api_key', principal.id, principal.name]
          : ['account', principal.accountId, (await client.query(DISPLAY_NAME_SQL, [principal.accountId])).rows[0]?.name ?? null];
      const userAgent = req.headers['user-agent'];
      await client.query(INSERT_ACTIVITY_SQL, [
        principal.accountId,
        'ticket.reply',
        'ticket',
        ticketId,
        ...actor,
        req.socket.remoteAddress ?? null,
        typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
        req.id,
        'succeeded',
        JSON.stringify({ messageId, attachments: 0 }),
        principal.memberId,
        principal.email,
        keyId,
      ]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    const message = (await pool.query(MESSAGE_SQL, [messageId])).rows[0];
    await pool.query(ATTACHMENTS_SQL, [[messageId]]);
    send(res, 201, {
      id: message.id,
      author: {
        type: message.author_type,
        name: message.author_name,
        memberId: message.author_member_id,
        email: message.author_email,
        keyId: message.author_key_id,
      },
      message: message.message,
      attachments: [],
      createdAt: message.created_at.toISOString(),
    });
  }

  async function handle(req, res) {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const search = q < 0 ? '' : req.url.slice(q + 1);
    if (path === '/health') return send(res, 200, { status: 'ok' });
    const principal = await authenticate(req);
    if (!principal) return problem(res, 401, 'unauthorized');
    const needed = req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'write';
    if (!principal.scopes.includes(needed)) return problem(res, 403, 'insufficient_scope');
    if (req.method === 'GET' && path === '/api/services') return listServices(res, principal, search);
    if (req.method === 'GET' && path === '/api/notifications/unread-count') return unreadCount(res, principal);
    const action = /^\/api\/services\/([^/]+)\/instance\/actions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && action) return getAction(res, principal, action[1], action[2]);
    const service = /^\/api\/services\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && service) return getService(res, principal, service[1]);
    const read = /^\/api\/notifications\/([^/]+)\/read$/.exec(path);
    if (req.method === 'POST' && read) return markRead(res, principal, read[1]);
    const reply = /^\/api\/support\/tickets\/([^/]+)\/reply$/.exec(path);
    if (req.method === 'POST' && reply) return replyToTicket(req, res, principal, reply[1]);
    problem(res, 404, 'not_found');
  }

  const server = http.createServer((req, res) => {
    // Only the ticket reply reads its body; the other routes drain whatever comes.
    req.id = randomUUID();
    res.setHeader('X-Request-Id', req.id);
    if (!(req.method === 'POST' && req.url.endsWith('/reply'))) req.resume();
    handle(req, res).catch(() => {
      if (!res.headersSent) problem(res, 500, 'internal_error');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  server.listen(port, '127.0.0.1', () => process.stdout.write(`baseline listening on ${port}\n`));
  const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (require.main === module) start();

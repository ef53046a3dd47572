'use strict';
// The webhooks scenario's bare loop (bench/webhooks.js), in a process of its own as the API is: per
// endpoint one request at a time, signed as the API signs, over a kept connection per endpoint. It
// gets the rows by IPC and answers with the rate.
const { createHmac } = require('node:crypto');
const http = require('node:http');

/** The bare loop: per endpoint one request at a time, each signed as the API signs (Standard Webhooks HMAC-SHA256). */
async function bareLoop(receiverPort, rows, secretKey) {
  const byEndpoint = new Map();
  for (const row of rows) {
    if (!byEndpoint.has(row.endpoint_id)) byEndpoint.set(row.endpoint_id, []);
    byEndpoint.get(row.endpoint_id).push(row);
  }
  // A kept connection per endpoint, as the API keeps one (libs/webhooks/src/delivery/endpoint-agents.ts).
  const agents = new Map();
  const agentFor = (path) => {
    if (!agents.has(path)) agents.set(path, new http.Agent({ keepAlive: true, maxSockets: 2, maxFreeSockets: 1 }));
    return agents.get(path);
  };
  const post = (path, row) =>
    new Promise((resolve, reject) => {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = `v1,${createHmac('sha256', secretKey).update(`${row.message_id}.${timestamp}.${row.body}`).digest('base64')}`;
      const req = http.request(
        {
          host: '127.0.0.1',
          port: receiverPort,
          path,
          method: 'POST',
          agent: agentFor(path),
          headers: {
            'webhook-id': row.message_id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signature,
            'content-type': 'application/json',
            'user-agent': 'bench',
            'content-length': Buffer.byteLength(row.body),
          },
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(row.body);
    });
  const started = performance.now();
  await Promise.all(
    [...byEndpoint.values()].map(async (list, i) => {
      for (const row of list) await post(`/fast/${i}`, row);
    }),
  );
  const rate = rows.length / ((performance.now() - started) / 1000);
  for (const agent of agents.values()) agent.destroy();
  return rate;
}

process.once('message', ({ receiverPort, secretKey, rows }) => {
  bareLoop(receiverPort, rows, Buffer.from(secretKey, 'base64')).then(
    (rate) => process.send({ rate }),
    (err) => process.send({ error: String(err?.stack ?? err) }),
  );
});

'use strict';
const { Client } = require('pg');

/** Runs `fn` with a connected client of its own, closed afterwards whatever happens. */
async function withClient(url, fn) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

module.exports = { withClient };

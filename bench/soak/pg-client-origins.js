'use strict';
// Preloaded into the soak's API replicas (NODE_OPTIONS --require): each pg Client remembers where it
// was made, and an `error` it emits with no listener (which ends the process) is printed with that
// place first. The soak's hour saw a replica end so at a PostgreSQL restart (docs/performance.md).
const path = require('node:path');

const ROOT = path.join(__dirname, '../..');
let Client;
let PgPool;
try {
  const pgPath = require.resolve('pg', { paths: [ROOT] });
  ({ Client } = require(pgPath));
  PgPool = require(require.resolve('pg-pool', { paths: [path.dirname(pgPath)] }));
} catch {
  Client = null;
}
if (Client && PgPool) {
  Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 30);
  // Who holds a pool's client: the caller of its latest checkout.
  const acquire = PgPool.prototype._acquireClient;
  PgPool.prototype._acquireClient = function (client, ...rest) {
    client.checkedOutAt = new Error('pg Client last checked out here').stack;
    return acquire.call(this, client, ...rest);
  };
  const connect = Client.prototype.connect;
  Client.prototype.connect = function (...args) {
    this.madeAt = new Error('pg Client made here').stack;
    return connect.apply(this, args);
  };
  const emit = Client.prototype.emit;
  Client.prototype.emit = function (event, ...args) {
    if (event === 'error' && this.listenerCount('error') === 0) {
      const origins = [this.madeAt ?? 'made before the preload', this.checkedOutAt ?? 'never checked out of a pool'];
      process.stderr.write(`\nUnheard pg Client error: ${args[0]?.message}\n${origins.join('\n')}\n`);
    }
    return emit.call(this, event, ...args);
  };
}

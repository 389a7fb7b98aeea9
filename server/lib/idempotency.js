'use strict';
// The purge of expired _Idempotency rows. With idempotencyOptions on, parse-server stores one row per write that
// carries an X-Parse-Request-Id (the SDK's exactly-once default sends one on every write it may retry) and never
// deletes them on PostgreSQL: its adapter creates idempotency_delete_expired_records() at start-up (deleting the
// rows whose expiry is more than one TTL past) and leaves calling it to the operator. Every instance calls it on a
// schedule; a call that finds nothing costs one index scan, and two instances calling it at once only delete the
// same rows.

// purgeIdempotency runs the function once over conn (a pg client or pool). A database without the function (an
// older parse-server, or idempotency off) is not an error: it resolves to false.
async function purgeIdempotency(conn) {
  try {
    await conn.query('SELECT idempotency_delete_expired_records()');
    return true;
  } catch (err) {
    // 42883: undefined_function.
    if (err && err.code === '42883') {
      return false;
    }
    throw err;
  }
}

// scheduleIdempotencyPurge calls purgeIdempotency every intervalMs over a one-connection pool of databaseURI, in
// the background (the timer does not keep the process alive). A failed purge is logged and tried again at the next
// tick: it only delays the clean-up.
function scheduleIdempotencyPurge(databaseURI, intervalMs) {
  const pg = require('pg');
  const pool = new pg.Pool({ connectionString: databaseURI, max: 1, idleTimeoutMillis: intervalMs * 2 });
  pool.on('error', err => console.error('devstack server: _Idempotency purge connection:', err.message));
  let running = false;
  const timer = setInterval(() => {
    if (running) {
      return;
    }
    running = true;
    purgeIdempotency(pool)
      .catch(err => console.error('devstack server: _Idempotency purge failed:', err.message))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => (clearInterval(timer), pool.end()) };
}

module.exports = { purgeIdempotency, scheduleIdempotencyPurge };

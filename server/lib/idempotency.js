'use strict';
// The purge of expired _Idempotency rows. With idempotencyOptions on, parse-server stores one row per write that
// carries an X-Parse-Request-Id (the SDK's exactly-once default sends one on every write it may retry), with its
// expiry (expire). What deletes them depends on the database:
//   - MongoDB: parse-server makes a TTL index on expire, and MongoDB deletes the rows itself: nothing to do;
//   - PostgreSQL: parse-server creates idempotency_delete_expired_records() and never calls it, so the table grows
//     by one row per write, forever. The package deletes the rows whose expiry is more than one TTL past (what that
//     function deletes: a late retry within a TTL of the expiry is still refused) through parse-server's database
//     controller, one DELETE each time, from every instance (two instances at once only delete the same rows);
//   - any other database adapter: nothing is done, and one log line says what the operator must do.
// The database controller is a private module (private.js): without it the purge is off, with that log line too.

// plan says what to do for the app's configuration: {mode, reason}, mode one of
//   'purge'     delete expired rows through config.database (PostgreSQL),
//   'database'  the database deletes them itself (MongoDB's TTL index),
//   'off'       nothing is done; reason says why and what the operator must do.
// config is parse-server's Config (or null when lib/Config is unusable: offReason then says why).
function plan(config, offReason = '') {
  if (!config) {
    return { mode: 'off', reason: `${offReason || 'no parse-server Config'}: call idempotency_delete_expired_records() (PostgreSQL) from cron` };
  }
  const options = config.idempotencyOptions;
  if (!options || !Array.isArray(options.paths) || options.paths.length === 0) {
    return { mode: 'off', reason: 'idempotency is not enabled (idempotencyOptions.paths): no rows to purge' };
  }
  const kind = databaseKind(config);
  if (kind === 'mongo') {
    return { mode: 'database', reason: "MongoDB's TTL index on _Idempotency.expire (made by parse-server)" };
  }
  if (kind === 'postgres') {
    if (!config.database || typeof config.database.destroy !== 'function') {
      return { mode: 'off', reason: "parse-server's database controller changed (no destroy): call idempotency_delete_expired_records() from cron" };
    }
    return { mode: 'purge', reason: '' };
  }
  return {
    mode: 'off',
    reason: 'the database adapter is neither PostgreSQL nor MongoDB: delete the _Idempotency rows whose expire is more than idempotencyOptions.ttl in the past yourself',
  };
}

// databaseKind returns 'postgres', 'mongo' or 'unknown' for parse-server's Config: by the adapter the database
// controller runs, else by the scheme of databaseURI.
function databaseKind(config) {
  const adapter = config && config.database && config.database.adapter;
  const name = adapter && adapter.constructor ? adapter.constructor.name : '';
  if (name === 'PostgresStorageAdapter') {
    return 'postgres';
  }
  if (name === 'MongoStorageAdapter') {
    return 'mongo';
  }
  const uri = String((config && config.databaseURI) || '');
  if (/^postgres(ql)?:/i.test(uri)) {
    return 'postgres';
  }
  if (/^mongodb(\+srv)?:/i.test(uri)) {
    return 'mongo';
  }
  return 'unknown';
}

// purgeIdempotency deletes the _Idempotency rows whose expiry is more than ttlSeconds before now, through database
// (parse-server's DatabaseController), and resolves to the count parse-server reports (0 when none).
async function purgeIdempotency(database, ttlSeconds, now = new Date()) {
  const before = new Date(now.getTime() - ttlSeconds * 1000);
  try {
    const n = await database.destroy('_Idempotency', { expire: { $lt: { __type: 'Date', iso: before.toISOString() } } }, {});
    return typeof n === 'number' ? n : 0;
  } catch (err) {
    if (err && err.code === 101) {
      return 0; // nothing to delete
    }
    throw err;
  }
}

// schedulePurge calls purgeIdempotency(getConfig().database) every intervalMs in the background (the timer does not
// keep the process alive). A failed purge is logged and tried again at the next tick: it only delays the clean-up.
function schedulePurge(getConfig, intervalMs, log = line => console.error(line)) {
  let running = false;
  const timer = setInterval(() => {
    if (running) {
      return;
    }
    const config = getConfig();
    if (!config || !config.database) {
      return;
    }
    running = true;
    const ttl = Number(config.idempotencyOptions && config.idempotencyOptions.ttl) || 300;
    purgeIdempotency(config.database, ttl)
      .catch(err => log(`moralis-go-server: _Idempotency purge failed (tried again in ${intervalMs / 1000} s): ${err && err.message}`))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

module.exports = { plan, databaseKind, purgeIdempotency, schedulePurge };

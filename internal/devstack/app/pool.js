'use strict';
// keepPoolConnections returns the PostgreSQL URI with idleTimeoutMillis=0 (unless it sets one): the connection pool
// keeps the connections it opened instead of closing each after 10 s idle (pg-pool's default). With the default, a
// pool under a steady load still shrinks between bursts and grows again in the next, and each new connection is a
// new PostgreSQL backend whose first queries plan against cold catalog caches (about 10 ms more of its CPU), paid
// while requests queue: the sign-in load measured latency spikes at each burst of new connections (DEPLOY.md).
function keepPoolConnections(uri) {
  const u = new URL(uri);
  if (!u.searchParams.has('idleTimeoutMillis')) {
    u.searchParams.set('idleTimeoutMillis', '0');
  }
  return u.toString();
}

module.exports = { keepPoolConnections };

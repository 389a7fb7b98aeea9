'use strict';
// Checks that the running stack finds sessions by an index (the server package's ensureSessionIndexes): the query plans of a
// _Session lookup by sessionToken, by installationId and by user must use the index made for it, not a scan of the
// table (parse-server on PostgreSQL makes none of them). The same for the package's own classes: a ticket found by
// client address or claim, a session record by key, and the purge of expired tickets, nonces and session records
// (every minute on every instance) by expiresAt. On PostgreSQL an index name is one per database: an index the
// schema lists but another class's index of the same name kept from being made is caught here. Sequential scans are
// switched off for the check, so a small table cannot hide a missing index. Exits 0 on success, 1 with a reason
// otherwise.
//   node session-index-check.js <postgres URL>
const pg = require('pg');

const [databaseURL] = process.argv.slice(2);
if (!databaseURL) {
  console.error('usage: session-index-check.js <postgres URL>');
  process.exit(2);
}

// indexesIn returns the names of the indexes a JSON query plan reads.
function indexesIn(plan, out = []) {
  if (plan && typeof plan === 'object') {
    if (typeof plan['Index Name'] === 'string') {
      out.push(plan['Index Name']);
    }
    for (const v of Object.values(plan)) {
      indexesIn(v, out);
    }
  }
  return out;
}

async function main() {
  const conn = new pg.Client({ connectionString: databaseURL });
  await conn.connect();
  try {
    await conn.query('SET enable_seqscan = off');
    const seen = [];
    const lookup = (table, column, index) => [table, column, index, `SELECT * FROM "${table}" WHERE "${column}" = $1`, ['r:none']];
    const purge = (table) => [table, 'expiresAt', `${table}_expiresAt`, `DELETE FROM "${table}" WHERE "expiresAt" < $1`, [new Date()]];
    for (const [table, column, index, query, params] of [
      lookup('_Session', 'sessionToken', '_Session_sessionToken'),
      lookup('_Session', 'installationId', '_Session_installationId'),
      lookup('_Session', 'user', '_Session_user'),
      lookup('MoralisAuthTicket', 'ip', 'ip_1'),
      lookup('MoralisAuthTicket', 'claim', 'claim_1'),
      lookup('MoralisAuthSession', 'key', 'key_1'),
      purge('MoralisAuthTicket'),
      purge('MoralisAuthNonce'),
      purge('MoralisAuthSession'),
    ]) {
      const { rows } = await conn.query(`EXPLAIN (FORMAT JSON) ${query}`, params);
      const used = indexesIn(rows[0]['QUERY PLAN']);
      if (!used.includes(index)) {
        throw new Error(`${query.split(' WHERE')[0]} by ${column} reads ${used.length ? used.join(', ') : 'no index'}, not ${index}`);
      }
      seen.push(`${table}.${column}`);
    }
    console.log(`session-index-check: ${seen.join(', ')} found through an index`);
  } finally {
    await conn.end();
  }
}

main().catch(err => {
  console.error(`session-index-check: ${err.message}`);
  process.exit(1);
});

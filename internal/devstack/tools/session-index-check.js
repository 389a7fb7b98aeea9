'use strict';
// Checks that the running stack finds sessions by an index (the server package's ensureSessionIndexes): the query plans of a
// _Session lookup by sessionToken, by installationId and by user must use the index made for it, not a scan of the
// table (parse-server on PostgreSQL makes none of them). Sequential scans are switched off for the check, so a small
// table cannot hide a missing index. Exits 0 on success, 1 with a reason otherwise.
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
    for (const [column, index] of [['sessionToken', '_Session_sessionToken'], ['installationId', '_Session_installationId'], ['user', '_Session_user']]) {
      const { rows } = await conn.query(`EXPLAIN (FORMAT JSON) SELECT * FROM "_Session" WHERE "${column}" = $1`, ['r:none']);
      const used = indexesIn(rows[0]['QUERY PLAN']);
      if (!used.includes(index)) {
        throw new Error(`a _Session lookup by ${column} reads ${used.length ? used.join(', ') : 'no index'}, not ${index}`);
      }
      seen.push(column);
    }
    console.log(`session-index-check: _Session found by ${seen.join(', ')} through an index`);
  } finally {
    await conn.end();
  }
}

main().catch(err => {
  console.error(`session-index-check: ${err.message}`);
  process.exit(1);
});

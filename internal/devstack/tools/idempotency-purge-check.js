'use strict';
// Checks the scheduled purge of _Idempotency (the server package's scheduleIdempotencyPurge) on the running stack: it inserts a row that
// expired an hour ago and one that expires in five minutes, waits for the purge to delete the first (up to 30 s;
// the stack purges every 5 s) and checks that the second stays. Exits 0 on success, 1 with a reason otherwise.
//   node idempotency-purge-check.js <postgres URL>
const pg = require('pg');

const [databaseURL] = process.argv.slice(2);
if (!databaseURL) {
  console.error('usage: idempotency-purge-check.js <postgres URL>');
  process.exit(2);
}
const tag = `purge-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

async function main() {
  const conn = new pg.Client({ connectionString: databaseURL });
  await conn.connect();
  try {
    const insert = 'INSERT INTO "_Idempotency" ("objectId", "reqId", "expire", "createdAt", "updatedAt") VALUES ($1, $2, $3, NOW(), NOW())';
    await conn.query(insert, [`${tag}-old`.slice(0, 30), `${tag}-expired`, new Date(Date.now() - 3600 * 1000)]);
    await conn.query(insert, [`${tag}-new`.slice(0, 30), `${tag}-live`, new Date(Date.now() + 300 * 1000)]);
    const started = Date.now();
    for (;;) {
      const { rows } = await conn.query('SELECT "reqId" FROM "_Idempotency" WHERE "reqId" LIKE $1 ORDER BY "reqId"', [`${tag}-%`]);
      const ids = rows.map(r => r.reqId);
      if (!ids.includes(`${tag}-live`)) {
        throw new Error(`the live row was purged (left: ${JSON.stringify(ids)})`);
      }
      if (!ids.includes(`${tag}-expired`)) {
        console.log(`idempotency-purge-check: the expired row went after ${Date.now() - started} ms, the live one stays`);
        break;
      }
      if (Date.now() - started > 30000) {
        throw new Error('the expired row is still there after 30 s: no purge runs');
      }
      await new Promise(r => setTimeout(r, 200));
    }
    await conn.query('DELETE FROM "_Idempotency" WHERE "reqId" LIKE $1', [`${tag}-%`]);
  } finally {
    await conn.end();
  }
}

main().catch(err => {
  console.error(`idempotency-purge-check: ${err.message}`);
  process.exit(1);
});

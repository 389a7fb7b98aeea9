'use strict';
// The linked-address classes of a Moralis v1 server: _EthAddress and _SolAddress, one object per linked wallet
// address whose objectId is the address itself. A Moralis server was a parse-server with these two system classes
// and custom object ids; stock parse-server refuses class names starting with "_" that are not its own. Two pieces
// make the local stack behave like a Moralis server:
//   - patch(dir): after `npm ci` (deps.sh), add the two names to parse-server's frozen systemClasses list
//     (idempotent; checked against the pinned version's source line);
//   - ensureTables(conn): before parse-server starts, create their tables (parse-server does not create tables
//     for system classes it does not know how to bootstrap).
const fs = require('fs');
const path = require('path');

const CLASSES = ['_EthAddress', '_SolAddress'];

function patch(parseServerDir) {
  const file = path.join(parseServerDir, 'lib', 'Controllers', 'SchemaController.js');
  const src = fs.readFileSync(file, 'utf8');
  if (src.includes("'_EthAddress'")) return false;
  const anchor = "'_Idempotency']);";
  if (!src.includes(anchor)) {
    throw new Error(`moralis-classes: cannot find the systemClasses list in ${file}; parse-server changed`);
  }
  fs.writeFileSync(file, src.replace(anchor, "'_Idempotency', " + CLASSES.map((c) => `'${c}'`).join(', ') + ']);'));
  return true;
}

async function ensureTables(conn) {
  for (const c of CLASSES) {
    await conn.query(
      `CREATE TABLE IF NOT EXISTS "${c}" ("objectId" text PRIMARY KEY, "createdAt" timestamptz, "updatedAt" timestamptz, "_rperm" text[], "_wperm" text[])`
    );
  }
}

module.exports = { patch, ensureTables, CLASSES };

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node moralis-classes.js <node_modules/parse-server>');
    process.exit(2);
  }
  const changed = patch(dir);
  console.log(changed ? 'moralis-classes: patched parse-server system classes' : 'moralis-classes: already patched');
}

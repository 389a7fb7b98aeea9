'use strict';
// moralisGoRecordSession (master key only): records a session the Go endpoint just made (authserver.ClientBackend),
// in one round trip instead of two. Params: sessionToken (the new session's), until (ISO date: its end) and record,
// the fields of its MoralisAuthSession object as the endpoint computed them (key: the HMAC of the token keyed by the
// master key; startedAt; and the binding: chain, address, chainId). It sets the expiresAt of the token's _Session to
// until and reads its objectId back (one UPDATE ... RETURNING), creates the record (empty ACL, holding that
// objectId), and answers {session: objectId}. No _Session for the token: 101. It is what the endpoint otherwise does
// with a query and a /batch; an endpoint whose backend lacks the function (141 "Invalid function") takes that way.
const tickets = require('../lib/tickets');

const OPTIONAL = ['chain', 'address', 'chainId'];

const { invalid, isoDate } = require('../lib/params').paramChecks('moralisGoRecordSession');

Parse.Cloud.define(
  'moralisGoRecordSession',
  async req => {
    if (!req.master || req.isReadOnly) {
      throw new Parse.Error(Parse.Error.OPERATION_FORBIDDEN, 'moralisGoRecordSession needs the master key (not the read-only one)');
    }
    const { sessionToken, until, record } = req.params || {};
    if (typeof sessionToken !== 'string' || sessionToken === '' || sessionToken.length > 200) {
      throw invalid('sessionToken must be a string');
    }
    if (!record || typeof record !== 'object' || typeof record.key !== 'string' || !/^[0-9a-f]{64}$/.test(record.key)) {
      throw invalid('record.key must be 64 hex digits');
    }
    const end = isoDate(until, 'until');
    const started = isoDate(record.startedAt, 'record.startedAt');
    const rec = { key: record.key, expiresAt: { __type: 'Date', iso: end }, startedAt: { __type: 'Date', iso: started } };
    for (const f of OPTIONAL) {
      if (record[f] !== undefined) {
        if (typeof record[f] !== 'string' || record[f].length > 200) {
          throw invalid(`record.${f} must be a string`);
        }
        rec[f] = record[f];
      }
    }
    const database = require('parse-server/lib/Config').get(Parse.applicationId).database;
    // One UPDATE ... WHERE sessionToken RETURNING *: the _Session's end set, and its objectId read back.
    let updated;
    try {
      updated = await database.update('_Session', { sessionToken }, { expiresAt: { __type: 'Date', iso: end } }, {}, true);
    } catch (err) {
      if (!err || err.code !== Parse.Error.OBJECT_NOT_FOUND) {
        throw err;
      }
    }
    const session = updated && typeof updated.objectId === 'string' ? updated.objectId : '';
    if (session === '') {
      throw new Parse.Error(Parse.Error.OBJECT_NOT_FOUND, 'moralisGoRecordSession: no session for the token');
    }
    const now = new Date().toISOString();
    await database.create(
      tickets.SESSION_CLASS,
      { objectId: tickets.randomAlnum(10), ...rec, session, ACL: {}, createdAt: now, updatedAt: now },
      {}
    );
    return { session };
  },
  { requireMaster: true }
);

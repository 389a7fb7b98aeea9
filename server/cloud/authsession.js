'use strict';
// moralisGoRecordSession (master key only): records a session the Go endpoint just made (authserver.ClientBackend),
// in one round trip instead of two. Params: sessionToken (the new session's), until (ISO date: its end) and record,
// the fields of its MoralisAuthSession object as the endpoint computed them (key: the HMAC of the token keyed by the
// master key; startedAt; and the binding: chain, address, chainId; an empty one is as absent). It sets the
// expiresAt of the token's _Session to until, creates the record (empty ACL, holding the session's objectId), and
// answers {session: objectId}. No _Session for the token: 101. It is what the endpoint otherwise does with a query
// and a /batch; an endpoint whose backend lacks the function (141 "Invalid function") takes that way. All of it
// through parse-server's public API (Parse.Query, Parse.Object and REST requests with the master key), on every
// supported line.
const { SESSION_CLASS } = require('../lib/setup');
const { paramChecks } = require('../lib/params');
const { rest } = require('../lib/rest');

const OPTIONAL = ['chain', 'address', 'chainId'];

// recordFields checks a record parameter (as moralisGoRecordSession and moralisGoSignIn take it) and returns its
// fields for MoralisAuthSession, with expiresAt = until; empty optional fields are left out.
function recordFields(record, until, { invalid, isoDate }) {
  if (!record || typeof record !== 'object' || typeof record.key !== 'string' || !/^[0-9a-f]{64}$/.test(record.key)) {
    throw invalid('record.key must be 64 hex digits');
  }
  const rec = { key: record.key, expiresAt: until, startedAt: isoDate(record.startedAt, 'record.startedAt') };
  for (const f of OPTIONAL) {
    if (record[f] !== undefined && record[f] !== '') {
      if (typeof record[f] !== 'string' || record[f].length > 200) {
        throw invalid(`record.${f} must be a string of at most 200 characters`);
      }
      rec[f] = record[f];
    }
  }
  return rec;
}

function define(Parse) {
  const checks = paramChecks('moralisGoRecordSession');
  Parse.Cloud.define(
    'moralisGoRecordSession',
    async req => {
      if (!req.master || req.isReadOnly) {
        throw new Parse.Error(Parse.Error.OPERATION_FORBIDDEN, 'moralisGoRecordSession needs the master key (not the read-only one)');
      }
      const { sessionToken, until, record } = req.params || {};
      if (typeof sessionToken !== 'string' || sessionToken === '' || sessionToken.length > 200) {
        throw checks.invalid('sessionToken must be a string');
      }
      const end = checks.isoDate(until, 'until');
      const rec = recordFields(record, end, checks);
      const s = await new Parse.Query('_Session').equalTo('sessionToken', sessionToken).first({ useMasterKey: true });
      if (!s) {
        throw new Parse.Error(Parse.Error.OBJECT_NOT_FOUND, 'moralisGoRecordSession: no session for the token');
      }
      // Parse.Session makes expiresAt read-only: the update goes as parse-server's REST request.
      await rest(Parse, 'PUT', `classes/_Session/${s.id}`, { expiresAt: { __type: 'Date', iso: end } });
      const row = new Parse.Object(SESSION_CLASS);
      row.set({ ...rec, expiresAt: new Date(rec.expiresAt), startedAt: new Date(rec.startedAt), session: s.id });
      row.setACL(new Parse.ACL());
      await row.save(null, { useMasterKey: true });
      return { session: s.id };
    },
    { requireMaster: true }
  );
}

module.exports = { define, recordFields };

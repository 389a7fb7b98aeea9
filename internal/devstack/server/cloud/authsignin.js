'use strict';
// moralisGoSignIn (master key only): a returning wallet's sign-in in one round trip, for the Go endpoint
// (authserver.ClientBackend). The endpoint verified the signature and spent its one-time nonce before it calls;
// what parse-server's login with authData would do after that is done here, in the same order and with the same
// parse-server functions, so cloud code sees the same thing:
//   1. find the user whose authData[provider].id is the address (the login's query: $or, limit 2);
//   2. run the app's beforeLogin trigger, as the login does (files expanded, the user inflated, an Auth that is
//      not master, with the sign-in's installation id, the request's context);
//   3. check the configured providers' login policy (Auth.checkIfUserHasProvidedConfiguredProvidersForLogin);
//   4. create the _Session through parse-server's own RestWrite (so _Session triggers run as for a login), with
//      createdWith {action: login, authProvider}, the sign-in's installation id, and the token and end the
//      endpoint chose (the login would set parse-server's default end, which the endpoint then shortens);
//   5. write the endpoint's MoralisAuthSession record (as moralisGoRecordSession does).
// It answers {user, session} (the user as the login answers it, without its password hash).
//
// It answers {useLogin: <reason>} and does nothing when the login would do more than the above, so the endpoint
// sends the real login: no user or several for the address (a first sign-in), a user whose authData for the
// provider is not exactly {id} (the adapter would write it), whose ACL is empty (the login filters it out), whose
// ethAddress/accounts (solAddress/solAccounts) do not hold the address yet (the SDK writes them), or an app with an
// afterSave trigger or LiveQuery on _User (a login with authData fires them).
//
// params: provider (moralisEth | moralisSol), id (the address as stored), installationId, sessionToken ("r:" and
// 32 hex digits, made by the endpoint), until (ISO date: the session's end), record (as moralisGoRecordSession's),
// again (optional: this call repeats one whose answer was lost; earlier sessions of the same installation id are
// deleted first, as the login's destroyDuplicatedSessions does).
const tickets = require('../tickets');

const PROVIDERS = {
  moralisEth: { address: 'ethAddress', list: 'accounts' },
  moralisSol: { address: 'solAddress', list: 'solAccounts' },
};
const OPTIONAL = ['chain', 'address', 'chainId'];

const { invalid, isoDate } = require('../params').paramChecks('moralisGoSignIn');

function shortString(v, what, max = 200) {
  if (typeof v !== 'string' || v === '' || v.length > max) {
    throw invalid(`${what} must be a string of 1 to ${max} characters`);
  }
  return v;
}

Parse.Cloud.define(
  'moralisGoSignIn',
  async req => {
    if (!req.master) {
      throw new Parse.Error(Parse.Error.OPERATION_FORBIDDEN, 'moralisGoSignIn needs the master key');
    }
    const p = req.params || {};
    const fields = PROVIDERS[p.provider];
    if (!fields) {
      throw invalid('provider must be moralisEth or moralisSol');
    }
    const id = shortString(p.id, 'id', 100);
    const installationId = shortString(p.installationId, 'installationId', 100);
    const sessionToken = shortString(p.sessionToken, 'sessionToken', 100);
    if (!/^r:[0-9a-f]{32}$/.test(sessionToken)) {
      throw invalid('sessionToken must be "r:" and 32 hex digits');
    }
    const until = isoDate(p.until, 'until');
    const record = p.record;
    if (!record || typeof record !== 'object' || typeof record.key !== 'string' || !/^[0-9a-f]{64}$/.test(record.key)) {
      throw invalid('record.key must be 64 hex digits');
    }
    const rec = { key: record.key, expiresAt: { __type: 'Date', iso: until }, startedAt: { __type: 'Date', iso: isoDate(record.startedAt, 'record.startedAt') } };
    for (const f of OPTIONAL) {
      if (record[f] !== undefined) {
        rec[f] = shortString(record[f], `record.${f}`);
      }
    }

    const config = req.config;
    const triggers = require('parse-server/lib/triggers');
    const Auth = require('parse-server/lib/Auth');
    const RestWrite = require('parse-server/lib/RestWrite');
    if (
      triggers.triggerExists('_User', triggers.Types.afterSave, config.applicationId) ||
      config.liveQueryController.hasLiveQuery('_User')
    ) {
      return { useLogin: 'user triggers' };
    }
    const found = await config.database.find('_User', { $or: [{ [`authData.${p.provider}.id`]: id }] }, { limit: 2 });
    if (found.length !== 1) {
      return { useLogin: 'no single user' };
    }
    const user = found[0];
    const stored = user.authData && user.authData[p.provider];
    if (!stored || typeof stored !== 'object' || stored.id !== id || Object.keys(stored).length !== 1) {
      return { useLogin: 'authData to write' };
    }
    const acl = user.ACL;
    if (!acl || typeof acl !== 'object' || Object.keys(acl).length === 0) {
      return { useLogin: 'ACL' };
    }
    if (user[fields.address] !== id || !Array.isArray(user[fields.list]) || !user[fields.list].includes(id)) {
      return { useLogin: 'fields to write' };
    }
    delete user.password;

    const auth = new Auth.Auth({ config, isMaster: false, installationId });
    if (triggers.triggerExists('_User', triggers.Types.beforeLogin, config.applicationId)) {
      const userData = structuredClone(user);
      await config.filesController.expandFilesInObject(config, userData);
      const object = triggers.inflate({ className: '_User' }, userData);
      await triggers.maybeRunTrigger(triggers.Types.beforeLogin, auth, object, null, config, req.context);
    }
    Auth.checkIfUserHasProvidedConfiguredProvidersForLogin({ config, auth }, { [p.provider]: { id } }, user.authData, config);

    if (p.again === true) {
      // The login's destroyDuplicatedSessions: a session an earlier, lost answer held.
      await config.database.destroy('_Session', { installationId, sessionToken: { $ne: sessionToken } }, {});
    }
    const { sessionData, createSession } = RestWrite.createSession(config, {
      userId: user.objectId,
      createdWith: { action: 'login', authProvider: p.provider },
      installationId,
    });
    sessionData.sessionToken = sessionToken;
    sessionData.expiresAt = { __type: 'Date', iso: until };
    const created = await createSession();
    const session = created && created.response && created.response.objectId;
    if (typeof session !== 'string' || session === '') {
      throw new Parse.Error(Parse.Error.INTERNAL_SERVER_ERROR, 'moralisGoSignIn: the session was not created');
    }
    const now = new Date().toISOString();
    await config.database.create(
      tickets.SESSION_CLASS,
      { objectId: tickets.randomAlnum(10), ...rec, session, ACL: {}, createdAt: now, updatedAt: now },
      {}
    );
    // The user as the login answers it: no password hash, no internal (underscore) fields.
    const answer = {};
    for (const [k, v] of Object.entries(user)) {
      if (!k.startsWith('_') && k !== 'password') {
        answer[k] = v;
      }
    }
    answer.sessionToken = sessionToken;
    return { user: answer, session };
  },
  { requireMaster: true }
);

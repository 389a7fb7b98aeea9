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
// provider is not exactly {id} (the adapter would write it), whose ACL is not exactly {user: read+write} or whose
// ethAddress/accounts (solAddress/solAccounts) do not hold the address yet (the SDK writes them), an app with an
// afterSave trigger or LiveQuery on _User (a login with authData fires them), a provider that is disabled or has
// another adapter than this project's, and a _User class whose create permission the public lacks (the login
// checks it). The read-only master key is refused. parse-server logs a function's parameters and result (at
// logLevels.cloudFunctionSuccess): the stack sets that to verbose, as the login's bodies are, since the parameters
// hold the new session's token (DEPLOY.md).
//
// It needs parse-server's private modules (lib/triggers, lib/Auth, lib/RestWrite, lib/Config) and parse-server 6 or
// later; where one is missing or changed (private.js), or on an older line, it answers {useLogin: "off: <reason>"}
// and the endpoint signs in with the login. A definite refusal of the user by the app (its beforeLogin trigger, the
// providers' login policy) is answered {refused: {code, error}}, with exactly the code and text the login would
// answer. Any other failure is an error answer (logged here with its stack): not a refusal, the endpoint then uses
// the login, and no internal text reaches a browser.
//
// params: provider (moralisEth | moralisSol), id (the address as stored), installationId, sessionToken ("r:" and
// 32 hex digits, made by the endpoint), until (ISO date: the session's end), record (as moralisGoRecordSession's),
// again (optional, informational: this call repeats one whose answer was lost). A session the lost call made is
// deleted by parse-server's own session write (destroyDuplicatedSessions: the same user and installation id).
const { SESSION_CLASS } = require('../lib/setup');
const { randomAlnum } = require('../lib/tickets');
const { paramChecks } = require('../lib/params');
const private_ = require('../lib/private');
const { recordFields } = require('./authsession');

const PROVIDERS = {
  moralisEth: { address: 'ethAddress', list: 'accounts' },
  moralisSol: { address: 'solAddress', list: 'solAccounts' },
};

// MIN_MAJOR is the first parse-server line whose login this function mirrors (5.x has no login policy of providers and
// passes adapters no request).
const MIN_MAJOR = 6;

// offReason returns why the function is off on this server ('' when it is on): parse-server older than MIN_MAJOR,
// or a private module it needs missing or changed.
function offReason(parseServerVersion) {
  const major = Number(String(parseServerVersion || '').split('.')[0]);
  if (!(major >= MIN_MAJOR)) {
    return `parse-server ${parseServerVersion || '(unknown version)'} is older than ${MIN_MAJOR}`;
  }
  return private_.featureOff('signIn');
}

// configProblem returns what parse-server's Config of the app lacks of what the function uses ('' when nothing).
function configProblem(config) {
  if (!config) {
    return 'no parse-server Config for the app';
  }
  const need = [
    ['database.find', config.database && config.database.find],
    ['database.create', config.database && config.database.create],
    ['database.destroy', config.database && config.database.destroy],
    ['database.loadSchema', config.database && config.database.loadSchema],
    ['filesController.expandFilesInObject', config.filesController && config.filesController.expandFilesInObject],
    ['liveQueryController.hasLiveQuery', config.liveQueryController && config.liveQueryController.hasLiveQuery],
    ['authDataManager.getValidatorForProvider', config.authDataManager && config.authDataManager.getValidatorForProvider],
  ];
  const missing = need.filter(([, f]) => typeof f !== 'function').map(([name]) => name);
  return missing.length ? `parse-server's Config changed: ${missing.join(', ')} missing` : '';
}

// requestConfig gives config (a fresh Config of the app, from Config.get) the request's fields parse-server 8 and later
// set on the request's own config (req.config), which triggers read: the client's address and the headers. Without
// them the app's beforeLogin trigger would see no request.ip on parse-server 6 and 7, where the login's shows it.
function requestConfig(config, req) {
  if (config) {
    config.ip = req.ip;
    config.headers = req.headers;
  }
  return config;
}

// isParseError reports whether err is an answer parse-server would send as it is (a Parse.Error of Parse, the SDK
// parse-server runs), as opposed to an internal failure (a TypeError, a database driver's error).
function isParseError(err, Parse) {
  return !!err && typeof Parse.Error === 'function' && err instanceof Parse.Error && Number.isInteger(err.code) && typeof err.message === 'string';
}

function shortString(invalid, v, what, max = 200) {
  if (typeof v !== 'string' || v === '' || v.length > max) {
    throw invalid(`${what} must be a string of 1 to ${max} characters`);
  }
  return v;
}

// define defines moralisGoSignIn on Parse. parseServerVersion is the running parse-server's version; log(line) is
// where a failure's detail goes.
function define(Parse, { parseServerVersion, log = line => console.error(line) } = {}) {
  const checks = paramChecks('moralisGoSignIn');
  const { invalid, isoDate } = checks;
  const off = offReason(parseServerVersion);

  // providerIsOurs reports whether parse-server runs this project's adapter, enabled, for provider. The answer
  // depends on the server's configuration only, which is fixed for the life of the process: it is worked out once
  // per app and provider (parse-server builds a new adapter object on each lookup, comparing function texts).
  const providerChecks = new Map();
  function providerIsOurs(config, provider) {
    const key = `${config.applicationId}\0${provider}`;
    if (!providerChecks.has(key)) {
      const validator = config.authDataManager.getValidatorForProvider(provider);
      const options = (config.auth || {})[provider] || {};
      const ours = require('../lib/auth')[provider];
      providerChecks.set(key, !!validator && !!validator.adapter && validator.adapter.validateAuthData === ours.validateAuthData && options.enabled !== false);
    }
    return providerChecks.get(key);
  }

  // publicMayCreateUsers reports whether _User's class-level permissions let the public create (what parse-server's
  // authData login checks), remembered for CREATE_CHECK_MS per app: a change of those permissions reaches the
  // one-call sign-in within that time (loading the schema on every sign-in cost about a millisecond of CPU).
  const CREATE_CHECK_MS = 10000;
  const createChecks = new Map();
  async function publicMayCreateUsers(config) {
    const seen = createChecks.get(config.applicationId);
    if (seen && Date.now() - seen.at < CREATE_CHECK_MS) {
      return seen.ok;
    }
    const schema = await config.database.loadSchema();
    let ok = true;
    try {
      await schema.validatePermission('_User', ['*'], 'create');
    } catch (err) {
      ok = false;
    }
    createChecks.set(config.applicationId, { ok, at: Date.now() });
    return ok;
  }

  async function signIn(req) {
    const p = req.params || {};
    const fields = PROVIDERS[p.provider];
    if (!fields) {
      throw invalid('provider must be moralisEth or moralisSol');
    }
    const id = shortString(invalid, p.id, 'id', 100);
    const installationId = shortString(invalid, p.installationId, 'installationId', 100);
    const sessionToken = shortString(invalid, p.sessionToken, 'sessionToken', 100);
    if (!/^r:[0-9a-f]{32}$/.test(sessionToken)) {
      throw invalid('sessionToken must be "r:" and 32 hex digits');
    }
    const until = isoDate(p.until, 'until');
    const rec = recordFields(p.record, until, checks);
    if (off) {
      return { useLogin: `off: ${off}` };
    }
    const config = req.config || requestConfig(private_.config(Parse.applicationId), req);
    const problem = configProblem(config);
    if (problem) {
      return { useLogin: `off: ${problem}` };
    }
    const triggers = private_.get('triggers');
    const Auth = private_.get('Auth');
    const RestWrite = private_.get('RestWrite');
    if (
      triggers.triggerExists('_User', triggers.Types.afterSave, config.applicationId) ||
      config.liveQueryController.hasLiveQuery('_User')
    ) {
      return { useLogin: 'user triggers' };
    }
    // The login runs the provider's configured adapter, and refuses a disabled provider: only this project's own
    // adapter, enabled, is one whose work the endpoint has done.
    if (!providerIsOurs(config, p.provider)) {
      return { useLogin: 'provider configuration' };
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
    // The SDK's login makes the user's ACL exactly {user: read+write} when it is anything else: leave that to it.
    const acl = user.ACL;
    const own = acl && typeof acl === 'object' ? acl[user.objectId] : undefined;
    if (!own || Object.keys(acl).length !== 1 || own.read !== true || own.write !== true) {
      return { useLogin: 'ACL to write' };
    }
    if (user[fields.address] !== id || !Array.isArray(user[fields.list]) || !user[fields.list].includes(id)) {
      return { useLogin: 'fields to write' };
    }
    // parse-server's authData login checks the class-level create permission of _User even for a login (an app
    // that closed sign-ups refuses it): the login gives the same answer.
    if (!(await publicMayCreateUsers(config))) {
      return { useLogin: 'create permission' };
    }
    delete user.password;

    // What the login refuses the user with, the function answers as {refused}: the app's beforeLogin trigger (its
    // error as parse-server resolves it) and the providers' login policy.
    const auth = new Auth.Auth({ config, isMaster: false, installationId });
    try {
      if (triggers.triggerExists('_User', triggers.Types.beforeLogin, config.applicationId)) {
        const userData = structuredClone(user);
        await config.filesController.expandFilesInObject(config, userData);
        const object = triggers.inflate({ className: '_User' }, userData);
        await triggers.maybeRunTrigger(triggers.Types.beforeLogin, auth, object, null, config, req.context);
      }
      Auth.checkIfUserHasProvidedConfiguredProvidersForLogin({ config, auth }, { [p.provider]: { id } }, user.authData, config);
    } catch (err) {
      if (isParseError(err, Parse)) {
        return { refused: { code: err.code, error: err.message } };
      }
      throw err;
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
      throw new Error('the session was not created');
    }
    const now = new Date().toISOString();
    try {
      await config.database.create(
        SESSION_CLASS,
        {
          objectId: randomAlnum(10),
          ...rec,
          expiresAt: { __type: 'Date', iso: rec.expiresAt },
          startedAt: { __type: 'Date', iso: rec.startedAt },
          session,
          ACL: {},
          createdAt: now,
          updatedAt: now,
        },
        {}
      );
    } catch (err) {
      // A session the endpoint has no record of is of no use: end it before answering the error.
      await config.database.destroy('_Session', { objectId: session }, {}).catch(() => {});
      throw err;
    }
    // The user as the login answers it: no password hash, no internal (underscore) fields.
    const answer = {};
    for (const [k, v] of Object.entries(user)) {
      if (!k.startsWith('_') && k !== 'password') {
        answer[k] = v;
      }
    }
    return { user: answer, session }; // no token: the endpoint chose it, and parse-server logs function results
  }

  Parse.Cloud.define(
    'moralisGoSignIn',
    async req => {
      if (!req.master || req.isReadOnly) {
        throw new Parse.Error(Parse.Error.OPERATION_FORBIDDEN, 'moralisGoSignIn needs the master key (not the read-only one)');
      }
      try {
        return await signIn(req);
      } catch (err) {
        if (isParseError(err, Parse)) {
          throw err; // a parameter error, or parse-server's own answer to a write: the endpoint uses the login
        }
        // An internal failure (a changed private module throwing a TypeError...): logged here whole, answered
        // without its text.
        log(`moralis-go-server: moralisGoSignIn failed, the endpoint signs in by the login: ${err && err.stack ? err.stack : err}`);
        throw new Parse.Error(Parse.Error.INTERNAL_SERVER_ERROR, 'moralisGoSignIn failed (see the parse-server log); sign in by the login');
      }
    },
    { requireMaster: true }
  );
  return off;
}

module.exports = { define, offReason, configProblem, isParseError };

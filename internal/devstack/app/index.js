'use strict';
// The local stack's parse-server app for moralis-go tests, configured like a Moralis v1 server. It mounts the
// moralis-go-server package (server/ at the repository root, installed into node_modules from its npm pack tarball
// by deps.sh) as a user's app does: its auth adapters in `auth`, its cloud code from cloud/main.js.
// Started by internal/devstack/up.sh, which passes everything through environment variables:
//   DEVSTACK_PORT, DEVSTACK_APP_ID, DEVSTACK_JS_KEY, DEVSTACK_MASTER_KEY, DEVSTACK_DATABASE_URI,
//   DEVSTACK_MAIL_FILE, DEVSTACK_PID_FILE (optional), DEVSTACK_LIVEQUERY_CLASSES (comma list,
//   default "LiveItem,LiveNote"), DEVSTACK_VERIFY_EMAILS ("0" turns e-mail verification off),
//   DEVSTACK_LIVEQUERY ("0": no LiveQuery server in this process), DEVSTACK_REDIS_URL (LiveQuery pub/sub
//   through Redis, so a save through any instance reaches the subscribers of every instance; unset: in-process
//   pub/sub, one instance only), DEVSTACK_IDEMPOTENCY_PURGE_SECONDS (interval of the _Idempotency purge,
//   default 5; "0" turns it off; read by cloud/main.js), DEVSTACK_BREAK_PRIVATE (comma list of parse-server private
//   modules the package must find broken: Config, triggers, Auth, RestWrite, RedisPubSub; for the tests that show
//   the package degrades instead of failing), DEVSTACK_ALLOW_CUSTOM_OBJECT_ID ("0": a stock server's default),
//   DEVSTACK_TRUST_PROXY (comma list: the balancer's address, whose X-Forwarded-For names the client: parse-server's
//   trustProxy).
// It runs on every parse-server line the package supports (the stack installs one per line: deps.sh): 6 and later
// start with ParseServer.startApp, 5.x with ParseServer.start.
// The process's working directory must be the state directory: the files adapter (files.js) writes
// under ./files, ./files-meta and ./ipfs, so every instance started from it serves the same files.
//
// Several instances may run over one database (up.sh starts two). For that:
// - databaseOptions.enableSchemaHooks: a schema change made through one instance reaches the
//   others' schema caches (Postgres LISTEN/NOTIFY) instead of waiting for their restart;
// - LiveQuery publishes and subscribes through Redis (liveQuery for the publisher in the API,
//   liveQueryServerOptions for the LiveQuery server's subscriber; the package's liveQueryRedis: parse-server's
//   RedisPubSub, what redisURL selects, with its publish failures caught): with the default in-process pub/sub a
//   save through instance 2 never reaches a subscriber of instance 1;
// - expired _Idempotency rows are purged on a schedule (the package's cloud code): parse-server's Postgres adapter
//   creates idempotency_delete_expired_records() but never calls it, so the table grows by one row per write;
// - the start-up initialisation (tables, indexes, CREATE OR REPLACE FUNCTION) runs under a
//   Postgres advisory lock, one instance at a time: run concurrently, two instances can fail
//   with "tuple concurrently updated" and exit.
const fs = require('fs');
const path = require('path');
const { ParseServer } = require('parse-server');
const moralisGo = require('moralis-go-server');
const { JsonLineMailAdapter } = require('./mail');
// A test may ask for parse-server private modules the package must find broken (before its cloud code loads).
if (process.env.DEVSTACK_BREAK_PRIVATE) {
  moralisGo.breakPrivateModules(process.env.DEVSTACK_BREAK_PRIVATE.split(',').map(s => s.trim()).filter(Boolean));
}
const { DevFilesAdapter, ipfsMiddleware } = require('./files');
const { keepPoolConnections } = require('./pool');

function required(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`devstack server: environment variable ${name} is required`);
    process.exit(2);
  }
  return v;
}

const port = Number(required('DEVSTACK_PORT'));
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`devstack server: DEVSTACK_PORT ${process.env.DEVSTACK_PORT} is not a TCP port`);
  process.exit(2);
}
const host = '127.0.0.1';
const mountPath = '/parse';
const serverURL = `http://${host}:${port}${mountPath}`;
// Files: FileSystemAdapter plus metadata, tags and IPFS (see files.js); the IPFS gateway is /ipfs/{cid} here.
const filesAdapter = new DevFilesAdapter();
const liveQueryEnabled = process.env.DEVSTACK_LIVEQUERY !== '0';
const redisURL = process.env.DEVSTACK_REDIS_URL || '';
const liveQueryClasses = (process.env.DEVSTACK_LIVEQUERY_CLASSES || 'LiveItem,LiveNote')
  .split(',')
  .map(s => s.trim())
  .filter(Boolean);

// The LiveQuery server, once started (main): its clients are told to catch up when the pub/sub resumes.
let liveQueryServer;

const options = {
  appId: required('DEVSTACK_APP_ID'),
  javascriptKey: required('DEVSTACK_JS_KEY'),
  masterKey: required('DEVSTACK_MASTER_KEY'),
  masterKeyIps: ['127.0.0.1', '::1'],
  // Behind the balancer every request comes from its address; trusting that address only (DEVSTACK_TRUST_PROXY) for
  // X-Forwarded-For, which the balancer overwrites, makes request.ip the client's: the public ticket function meters
  // each client, masterKeyIps checks the caller.
  trustProxy: process.env.DEVSTACK_TRUST_PROXY ? process.env.DEVSTACK_TRUST_PROXY.split(',') : false,
  databaseURI: keepPoolConnections(required('DEVSTACK_DATABASE_URI')),
  databaseOptions: { enableSchemaHooks: true },
  serverURL,
  publicServerURL: serverURL,
  appName: process.env.DEVSTACK_APP_NAME || 'moralis-go devstack',
  port,
  host,
  mountPath,
  // The app's cloud file, which loads the package's cloud code (as a user's app does: README of the package).
  cloud: path.join(__dirname, 'cloud', 'main.js'),
  allowClientClassCreation: true,
  // A Moralis server accepts client-chosen object ids: _EthAddress/_SolAddress objects are keyed by the address. A
  // stock parse-server does not (DEVSTACK_ALLOW_CUSTOM_OBJECT_ID=0): the SDK then links without them.
  allowCustomObjectId: process.env.DEVSTACK_ALLOW_CUSTOM_OBJECT_ID !== '0',
  enableSanitizedErrorResponse: false,
  fileUpload: {
    enableForPublic: true,
    enableForAnonymousUser: true,
    enableForAuthenticatedUser: true,
    fileExtensions: ['.*'],
  },
  filesAdapter,
  // Runs before parse-server's routes: the IPFS answer of uploads that ask for it, and the gateway.
  middleware: ipfsMiddleware({ adapter: filesAdapter, mountPath, gatewayBase: new URL(serverURL).origin }),
  idempotencyOptions: { paths: ['.*'], ttl: 300 },
  emailAdapter: new JsonLineMailAdapter(required('DEVSTACK_MAIL_FILE')),
  verifyUserEmails: process.env.DEVSTACK_VERIFY_EMAILS !== '0',
  preventLoginWithUnverifiedEmail: false,
  auth: moralisGo.authAdapters(),
  // The publisher (every instance's API publishes its saves) and the LiveQuery server's subscriber share Redis:
  // parse-server's RedisPubSub (what liveQuery.redisURL selects) with publish failures caught (liveQueryRedis).
  liveQuery: liveQueryEnabled
    ? { classNames: liveQueryClasses, ...(redisURL ? moralisGo.liveQueryRedis(redisURL) : {}) }
    : undefined,
  startLiveQueryServer: liveQueryEnabled,
  liveQueryServerOptions:
    liveQueryEnabled && redisURL ? moralisGo.liveQueryRedis(redisURL, { onSubscriberResume: () => moralisGo.closeLiveQueryClients(liveQueryServer) }) : undefined,
  logLevel: process.env.DEVSTACK_LOG_LEVEL || 'info',
  // A cloud function's parameters and result are logged at cloudFunctionSuccess: the endpoint's sign-in and record
  // functions carry a new session's token, so their success goes to verbose, where parse-server logs the login's
  // bodies. A before-trigger's input and result are logged at triggerBeforeSuccess: the whole user at every login
  // (the beforeLogin trigger of cloud/triggers.js), the package's ticket and session-record rows at every sign-in (its
  // master-only beforeSave hooks); at parse-server's default, info, that logging took about 0.5 ms of the 4 ms of CPU
  // a one-call sign-in costs parse-server, so it goes to verbose too (DEPLOY.md). The other levels are parse-server's
  // defaults, given whole.
  logLevels: {
    cloudFunctionError: 'error',
    cloudFunctionSuccess: 'verbose',
    signupUsernameTaken: 'info',
    triggerAfter: 'info',
    triggerBeforeError: 'error',
    triggerBeforeSuccess: 'verbose',
  },
};


// An arbitrary constant: the advisory lock's key, shared by every devstack instance.
const INIT_LOCK_KEY = 7316024011;

// withInitLock runs fn while holding a session-level Postgres advisory lock on the database, so
// instances started together initialise the schema one after the other. pg is parse-server's own
// driver (a dependency of pg-promise); without it fn runs unlocked.
async function withInitLock(fn) {
  let pg;
  try {
    pg = require('pg');
  } catch (err) {
    console.error('devstack server: no pg module, starting without the init lock:', err.message);
    return fn();
  }
  const conn = new pg.Client({ connectionString: options.databaseURI });
  await conn.connect();
  try {
    await conn.query('SELECT pg_advisory_lock($1)', [INIT_LOCK_KEY]);
    await require('./moralis-classes').ensureTables(conn);
    return await fn();
  } finally {
    // Closing the session releases the lock.
    await conn.end().catch(() => {});
  }
}

// start starts parse-server and resolves once it listens with its database initialised. startApp (parse-server 6 and
// later) initialises the database, listens on host:port, mounts the API on /parse and, with startLiveQueryServer,
// runs ParseServer.createLiveQueryServer(httpServer) on the same HTTP server (ws://host:port/parse). parse-server 5
// has ParseServer.start instead, which listens at once and reports the end of the initialisation through
// serverStartComplete.
function start() {
  if (typeof ParseServer.startApp === 'function') {
    return ParseServer.startApp(options);
  }
  return new Promise((resolve, reject) => {
    let server;
    options.serverStartComplete = err => (err ? reject(err) : resolve(server));
    server = ParseServer.start(options);
  });
}

async function main() {
  const server = await withInitLock(start);
  liveQueryServer = server.liveQueryServer;
  // parse-server's own SIGTERM/SIGINT handler closes the servers but can leave the process running
  // (database pool, timers); give it a second to finish in-flight requests, then exit.
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => setTimeout(() => process.exit(0), 1000).unref());
  }
  if (process.env.DEVSTACK_PID_FILE) {
    // Line 2 is the Redis the instance was started with: up.sh restarts an instance whose Redis moved.
    fs.writeFileSync(process.env.DEVSTACK_PID_FILE, `${process.pid}\n${redisURL}\n`);
  }
  console.log(
    `devstack server: parse-server ${require('parse-server/package.json').version} with moralis-go-server ${moralisGo.version} on ${serverURL}, ` +
      (liveQueryEnabled
        ? `LiveQuery classes ${liveQueryClasses.join(',')} (pub/sub ${redisURL ? 'through ' + redisURL : 'in process'})`
        : 'no LiveQuery server')
  );
  return server;
}

main().catch(err => {
  console.error('devstack server: failed to start:', err && err.stack ? err.stack : err);
  process.exit(1);
});

'use strict';
// Local parse-server for moralis-go tests, configured like a Moralis v1 server.
// Started by internal/devstack/up.sh, which passes everything through environment variables:
//   DEVSTACK_PORT, DEVSTACK_APP_ID, DEVSTACK_JS_KEY, DEVSTACK_MASTER_KEY, DEVSTACK_DATABASE_URI,
//   DEVSTACK_MAIL_FILE, DEVSTACK_PID_FILE (optional), DEVSTACK_LIVEQUERY_CLASSES (comma list,
//   default "LiveItem,LiveNote"), DEVSTACK_VERIFY_EMAILS ("0" turns e-mail verification off).
// The process's working directory must be the state directory: the filesystem files adapter
// writes under ./files.
const fs = require('fs');
const path = require('path');
const { ParseServer, FileSystemAdapter } = require('parse-server');
const { moralisEth, moralisSol } = require('./auth');
const { JsonLineMailAdapter } = require('./mail');

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
const liveQueryClasses = (process.env.DEVSTACK_LIVEQUERY_CLASSES || 'LiveItem,LiveNote')
  .split(',')
  .map(s => s.trim())
  .filter(Boolean);

const options = {
  appId: required('DEVSTACK_APP_ID'),
  javascriptKey: required('DEVSTACK_JS_KEY'),
  masterKey: required('DEVSTACK_MASTER_KEY'),
  masterKeyIps: ['127.0.0.1', '::1'],
  databaseURI: required('DEVSTACK_DATABASE_URI'),
  serverURL,
  publicServerURL: serverURL,
  appName: process.env.DEVSTACK_APP_NAME || 'moralis-go devstack',
  port,
  host,
  mountPath,
  cloud: path.join(__dirname, 'cloud', 'main.js'),
  allowClientClassCreation: true,
  enableSanitizedErrorResponse: false,
  fileUpload: {
    enableForPublic: true,
    enableForAnonymousUser: true,
    enableForAuthenticatedUser: true,
    fileExtensions: ['.*'],
  },
  filesAdapter: new FileSystemAdapter(),
  idempotencyOptions: { paths: ['.*'], ttl: 300 },
  emailAdapter: new JsonLineMailAdapter(required('DEVSTACK_MAIL_FILE')),
  verifyUserEmails: process.env.DEVSTACK_VERIFY_EMAILS !== '0',
  preventLoginWithUnverifiedEmail: false,
  auth: {
    moralisEth: { module: moralisEth },
    moralisSol: { module: moralisSol },
  },
  liveQuery: { classNames: liveQueryClasses },
  startLiveQueryServer: true,
  logLevel: process.env.DEVSTACK_LOG_LEVEL || 'info',
};

async function main() {
  // startApp listens on host:port, mounts the API on /parse and, with startLiveQueryServer, runs
  // ParseServer.createLiveQueryServer(httpServer) on the same HTTP server (ws://host:port/parse).
  const server = await ParseServer.startApp(options);
  // parse-server's own SIGTERM/SIGINT handler closes the servers but can leave the process running
  // (database pool, timers); give it a second to finish in-flight requests, then exit.
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => setTimeout(() => process.exit(0), 1000).unref());
  }
  if (process.env.DEVSTACK_PID_FILE) {
    fs.writeFileSync(process.env.DEVSTACK_PID_FILE, `${process.pid}\n`);
  }
  console.log(
    `devstack server: parse-server ${require('parse-server/package.json').version} on ${serverURL}, ` +
      `LiveQuery classes ${liveQueryClasses.join(',')}`
  );
  return server;
}

main().catch(err => {
  console.error('devstack server: failed to start:', err && err.stack ? err.stack : err);
  process.exit(1);
});

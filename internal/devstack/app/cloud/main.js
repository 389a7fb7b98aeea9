'use strict';
// Cloud code of the local stack's app. parse-server loads this file; it mounts the moralis-go-server package's cloud
// code as a user's app does (one require from the app's own cloud file), then loads every other *.js file in this
// folder (in name order): the app's own functions and triggers the tests use. `Parse` is the global that
// parse-server installs before loading cloud code.
const fs = require('fs');
const path = require('path');

require('moralis-go-server/cloud');

Parse.Cloud.define('echo', req => ({
  params: req.params,
  user: req.user ? req.user.id : null,
  master: req.master === true,
}));

Parse.Cloud.define('fail', () => {
  throw new Parse.Error(Parse.Error.SCRIPT_FAILED, 'intentional failure');
});

// A job that records a progress message and succeeds; it returns nothing, so the _JobStatus row keeps
// that message (a returned string would replace it).
Parse.Cloud.job('simpleJob', async req => {
  await req.message('simpleJob ran');
});

for (const name of fs.readdirSync(__dirname).sort()) {
  if (name.endsWith('.js') && name !== path.basename(__filename)) {
    require(path.join(__dirname, name));
  }
}

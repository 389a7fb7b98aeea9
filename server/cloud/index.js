'use strict';
// The package's cloud code. Load it from the app's own cloud file, once:
//   require('moralis-go-server/cloud');
// It defines, on the global Parse that parse-server installs before it loads cloud code:
//   getServerTime                  {dateTime}: the server's clock (the SDK's sign-in message carries it)
//   moralisAuthRequestMessage      a message and one-time ticket for an SDK client's direct sign-in (authticket.js)
//   moralisGoRecordSession         the Go endpoint's session record, master key only (authsession.js)
//   moralisGoSignIn                a returning wallet's sign-in in one request, master key only (authsignin.js)
//   the chain-data functions       one per Web3 API endpoint, for clients without an API key (web3.gen.js)
//   moralisGoServerInfo            {name, version, features}: what this package offers (serverinfo.js)
//   moralisGoTxApplied             whether an atomic batch of the Go SDK committed, by its mark (txmark.js)
//   moralisGoCheckWrites           which write of a batch the class schema refuses, with parse-server's text (txmark.js)
//   the MoralisGoTxMark beforeSave the batch marks' checks (txmark.js; the class is set up by ensureClasses)
Parse.Cloud.define('getServerTime', () => ({ dateTime: new Date().toISOString() }));

require('./authticket');
require('./authsession');
require('./authsignin');
require('./web3.gen');
require('./txmark');
require('./serverinfo');

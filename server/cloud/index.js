'use strict';
// The package's cloud code with its default options. Load it from the app's own cloud file, once:
//   require('moralis-go-server/cloud');
// (or call require('moralis-go-server').registerCloud({...}) there to change an option). It defines, on the global
// Parse that parse-server installs before it loads cloud code:
//   getServerTime                  {dateTime}: the server's clock (the SDK's sign-in message carries it)
//   moralisAuthRequestMessage      a message and one-time ticket for an SDK client's direct sign-in (authticket.js)
//   moralisGoRecordSession         the Go endpoint's session record, master key only (authsession.js)
//   moralisGoSignIn                a returning wallet's sign-in in one request, master key only (authsignin.js)
//   moralisGoServerInfo            what this server offers (register.js)
//   moralisGoTxApplied             whether an atomic batch of the Go SDK committed, by its mark (lib/txmark.js)
//   moralisGoCheckWrites           which write of a batch the class schema refuses, with parse-server's text
//   the chain-data functions       one per Web3 API endpoint, for clients without an API key (web3.gen.js)
// and the rest register.js lists.
module.exports = require('./register').registerCloud();

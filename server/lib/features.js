'use strict';
// The features of the moralis-go-server package that are on in this process, and why others are off, as
// moralisGoServerInfo (cloud/serverinfo.js) reports them to the Go SDK and the endpoint (contract: name, version,
// features; with the master key also off). A module turns its feature on once what it needs is in place (a class
// set up at start-up, a private module that passed its check) and off with a reason otherwise. Only txMark registers
// itself so far (lib/txmark.js); the contract's other names (tickets, signIn, recordSession, serverTime, web3,
// idempotencyPurge, sessionIndexes) are listed once their modules register, so a feature that is there but not
// registered is not reported off either.
const state = new Map(); // name -> { on: boolean, reason: string }

function on(name) {
  state.set(name, { on: true, reason: '' });
}

function off(name, reason) {
  state.set(name, { on: false, reason: String(reason || 'off') });
  console.error(`moralis-go-server: feature ${name} is off: ${reason}`);
}

// list returns the names of the features that are on, sorted.
function list() {
  return [...state.entries()].filter(([, s]) => s.on).map(([n]) => n).sort();
}

// offReasons returns {name: reason} for every feature turned off.
function offReasons() {
  const out = {};
  for (const [name, s] of state) {
    if (!s.on) {
      out[name] = s.reason;
    }
  }
  return out;
}

module.exports = { on, off, list, offReasons };

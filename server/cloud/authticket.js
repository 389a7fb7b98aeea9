'use strict';
// moralisAuthRequestMessage: the message an SDK client signs to sign in against this backend directly (the Go SDK's
// auth.SignInEthereum / SignInSolana / Link*; browsers use the Go endpoint, which issues its own). It answers
//   {message: text + "\n\nId: " + appId + ":" + secret, ticket, expiresAt}
// and stores a one-time ticket (tickets.js) bound to the chain, the address and that exact message, which the
// moralisEth / moralisSol adapters consume at sign-in. Params: chain ("evm" default, or "solana"), address (0x + 40
// hex digits, or a base58 ed25519 public key that can sign), text (optional, default "Moralis Authentication", at
// most 1024 characters, no control characters but line feeds and tabs).
//
// The function is public (the JavaScript key), so it is metered by what it costs, the rows it leaves: a client address
// may hold at most options.ticketsPerClient (default 20) unexpired tickets it has not used (a sign-in deletes its
// ticket, so a client that signs in as it asks is never limited), and beyond that gets 155 "Too many ticket
// requests"; and at most options.ticketsOutstanding (default 10,000) unused public tickets may be unexpired at once
// (beyond: 155 "Too many outstanding tickets"), so the table stays under about 10 MB. Expired tickets are purged
// every minute (tickets.startPurging, started by register.js). Calls with the master key are not metered. Its tickets are marked public
// (with the client address): the sessions they give work at the backend, and are refused by the Go endpoint, which
// accepts only the sessions it made (authserver.ClientBackend).
const tickets = require('../lib/tickets');
const { solanaPublicKey } = require('../lib/auth');

const DEFAULT_TEXT = 'Moralis Authentication';
const MAX_TEXT = 1024;
const REFUSED_MS = 1000;
const MAX_ADDRESSES = 100000;

// define defines moralisAuthRequestMessage on Parse with options {ticketTtlMs, ticketsPerClient, ticketsOutstanding}.
function define(Parse, { ticketTtlMs = tickets.DEFAULT_TICKET_TTL_MS, ticketsPerClient = 20, ticketsOutstanding = 10000 } = {}) {
  const invalid = message => new Parse.Error(Parse.Error.VALIDATION_ERROR, message);

  // Per client address, in this process: calls between their count and their ticket's save (so concurrent calls
  // cannot all pass one count), and when an address was last refused (its calls in the next REFUSED_MS are refused
  // without a database query). Both maps are bounded.
  const inFlight = new Map();
  const refusedAt = new Map();

  function refuse(ip, now) {
    if (refusedAt.size >= MAX_ADDRESSES) {
      for (const [k, t] of refusedAt) {
        if (now - t >= REFUSED_MS) {
          refusedAt.delete(k);
        }
      }
      if (refusedAt.size >= MAX_ADDRESSES) {
        refusedAt.clear();
      }
    }
    refusedAt.set(ip, now);
    return new Parse.Error(Parse.Error.REQUEST_LIMIT_EXCEEDED, 'Too many ticket requests');
  }

  // meter runs issue() for client address ip within the limits, or throws 155.
  async function meter(ip, issue) {
    const now = Date.now();
    if (now - (refusedAt.get(ip) || -Infinity) < REFUSED_MS) {
      throw refuse(ip, refusedAt.get(ip));
    }
    const mine = inFlight.get(ip) || 0;
    if (mine >= ticketsPerClient || inFlight.size >= MAX_ADDRESSES) {
      throw refuse(ip, now);
    }
    inFlight.set(ip, mine + 1);
    try {
      if ((await tickets.countOutstanding(Parse, { ip })) + mine >= ticketsPerClient) {
        throw refuse(ip, now);
      }
      if ((await tickets.countOutstanding(Parse)) >= ticketsOutstanding) {
        throw new Parse.Error(Parse.Error.REQUEST_LIMIT_EXCEEDED, 'Too many outstanding tickets');
      }
      return await issue();
    } finally {
      const n = inFlight.get(ip) - 1;
      if (n > 0) {
        inFlight.set(ip, n);
      } else {
        inFlight.delete(ip);
      }
    }
  }

  Parse.Cloud.define('moralisAuthRequestMessage', async req => {
    const p = req.params || {};
    const chain = p.chain === undefined ? 'evm' : p.chain;
    if (chain !== 'evm' && chain !== 'solana') {
      throw invalid('chain must be "evm" or "solana"');
    }
    if (typeof p.address !== 'string' || p.address === '') {
      throw invalid('Address not found');
    }
    let address = p.address;
    if (chain === 'evm') {
      if (!/^0x[0-9a-fA-F]{40}$/.test(address)) {
        throw invalid('Invalid address');
      }
      address = address.toLowerCase();
    } else if (solanaPublicKey(address) === null) {
      throw invalid('Invalid address');
    }
    const text = p.text === undefined || p.text === null || p.text === '' ? DEFAULT_TEXT : p.text;
    // eslint-disable-next-line no-control-regex
    if (typeof text !== 'string' || text.length > MAX_TEXT || /[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) {
      throw invalid('Invalid text');
    }
    const appId = Parse.applicationId;
    const ip = req.ip || 'unknown';
    const issue = () =>
      tickets.issueTicket(Parse, {
        chain,
        address,
        ttlMs: ticketTtlMs,
        ip,
        messageFor: secret => `${text}\n\nId: ${appId}:${secret}`,
      });
    const t = req.master ? await issue() : await meter(ip, issue);
    return { message: t.message, ticket: t.ticket, expiresAt: t.expiresAt.toISOString() };
  });
}

module.exports = { define };

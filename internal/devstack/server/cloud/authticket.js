'use strict';
// moralisAuthRequestMessage: the message an SDK client signs to sign in against this backend directly (the Go SDK's
// auth.SignInEthereum / SignInSolana / Link*; browsers use the Go endpoint, which issues its own). It answers
//   {message: text + "\n\nId: " + appId + ":" + secret, ticket, expiresAt}
// and stores a one-time ticket (tickets.js) bound to the chain, the address and that exact message, which the
// moralisEth / moralisSol adapters consume at sign-in. Params: chain ("evm" default, or "solana"), address (0x + 40
// hex digits, or a base58 ed25519 public key that can sign), text (optional, default "Moralis Authentication", at
// most 1024 characters, no control characters but line feeds and tabs).
const tickets = require('../tickets');
const { solanaPublicKey } = require('../auth');

const DEFAULT_TEXT = 'Moralis Authentication';
const MAX_TEXT = 1024;
const ttlMs = Number(process.env.DEVSTACK_TICKET_TTL_MS) > 0 ? Number(process.env.DEVSTACK_TICKET_TTL_MS) : tickets.DEFAULT_TICKET_TTL_MS;

function invalid(message) {
  return new Parse.Error(Parse.Error.VALIDATION_ERROR, message);
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
  const appId = req.config ? req.config.applicationId : Parse.applicationId;
  const t = await tickets.issueTicket(Parse, {
    chain,
    address,
    ttlMs,
    messageFor: secret => `${text}\n\nId: ${appId}:${secret}`,
  });
  return { message: t.message, ticket: t.ticket, expiresAt: t.expiresAt.toISOString() };
});

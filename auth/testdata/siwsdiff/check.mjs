// Runs @solana/wallet-standard-util over a corpus written by auth's TestSIWSDifferential (Go) and prints the
// reference's verdicts as JSON: for each sign-in case verifySignIn(input, output); for each text
// parseSignInMessageText and createSignInMessageText of what it parsed. The Go test compares them with its own.
import { readFileSync } from 'node:fs';
import { createSignInMessageText, parseSignInMessageText, verifySignIn } from '@solana/wallet-standard-util';

const corpus = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const dropUndefined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const signIns = corpus.signIns.map((c) => {
  const publicKey = hex(c.publicKey);
  const output = {
    account: { address: c.accountAddress, publicKey, chains: [], features: [] },
    signedMessage: new TextEncoder().encode(c.text),
    signature: hex(c.signature),
  };
  let ref;
  try {
    ref = verifySignIn(c.input, output);
  } catch (e) {
    ref = false; // a throw (e.g. a key that is not a point) is a refusal
  }
  return { name: c.name, ref };
});

const parses = corpus.texts.map((text) => {
  const parsed = parseSignInMessageText(text);
  return {
    parsed: parsed ? dropUndefined(parsed) : null,
    created: parsed ? createSignInMessageText(parsed) : null,
  };
});

process.stdout.write(JSON.stringify({ signIns, parses }));

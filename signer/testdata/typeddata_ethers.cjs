// The other side of signer's differential typed-data test (typeddata_diff_test.go): for each EIP-712 document of
// a JSON corpus, ethers v6's TypedDataEncoder.hash, or the error it throws. Run by the Go test as
//   node typeddata_ethers.cjs <react-hooks/package.json> <corpus.json>
// ethers is resolved from the react-hooks package (its dev dependency), so nothing is installed for this test.
'use strict';
const fs = require('node:fs');
const { createRequire } = require('node:module');

const [pkg, corpusPath] = process.argv.slice(2);
const { TypedDataEncoder, version } = createRequire(pkg)('ethers');
const corpus = JSON.parse(fs.readFileSync(corpusPath, 'utf8'));
const out = corpus.map((doc) => {
  try {
    const types = { ...doc.types };
    delete types.EIP712Domain; // ethers derives the domain's type from the domain itself
    // ethers infers the primary type; check it agrees with the document's rather than trust it silently.
    const primary = TypedDataEncoder.getPrimaryType(types);
    if (primary !== doc.primaryType) throw new Error(`ethers infers primary type ${primary}, not ${doc.primaryType}`);
    return { hash: TypedDataEncoder.hash(doc.domain, types, doc.message) };
  } catch (e) {
    return { error: String(e && e.shortMessage ? e.shortMessage : e) };
  }
});
process.stdout.write(JSON.stringify({ ethers: version, results: out }));

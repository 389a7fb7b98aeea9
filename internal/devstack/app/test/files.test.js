'use strict';
// Unit tests of files.js: CIDs against the published kubo vector, the adapter's metadata and IPFS storage, and
// the IPFS middleware around a stand-in for parse-server's upload route. Run with the other server tests:
// NODE_PATH=.devstack/server/node_modules node --test internal/devstack/server/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const express = require('express');

// files.js loads parse-server, whose logger would otherwise make ./logs in the working directory.
process.env.PARSE_SERVER_LOGS_FOLDER = process.env.PARSE_SERVER_LOGS_FOLDER || 'null';
const { DevFilesAdapter, ipfsMiddleware, cidOf, canonicalCID } = require('../files');

// The adapter writes under the working directory (./files, ./files-meta, ./ipfs): use a fresh one (after the
// requires: a relative NODE_PATH is looked up from the working directory).
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'devstack-files-'));
process.chdir(workDir);
process.on('exit', () => fs.rmSync(workDir, { recursive: true, force: true }));

// `echo -n hello | ipfs add --cid-version 1 --raw-leaves` and the empty file.
const HELLO_CID = 'bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq';
const EMPTY_CID = 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku';

// cidByHand is the same CID without multiformats: 0x01 0x55 0x12 0x20 + sha256, base32 lower case, prefix "b".
function cidByHand(data) {
  const bytes = Buffer.concat([Buffer.from([0x01, 0x55, 0x12, 0x20]), crypto.createHash('sha256').update(data).digest()]);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = 'b';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

test('CIDs are CIDv1 raw sha2-256 in base32 (kubo vectors)', async () => {
  assert.equal(await cidOf(Buffer.from('hello')), HELLO_CID);
  assert.equal(await cidOf(Buffer.alloc(0)), EMPTY_CID);
  const data = crypto.randomBytes(1000);
  assert.equal(await cidOf(data), cidByHand(data));
  assert.equal(canonicalCID(HELLO_CID), HELLO_CID);
  for (const bad of ['', 'hello', HELLO_CID.toUpperCase(), 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG', '../files/x', HELLO_CID + '/x']) {
    assert.equal(canonicalCID(bad), null, bad);
  }
});

test('metadata and tags are kept with the file and forgotten with it', async () => {
  const a = new DevFilesAdapter();
  await a.createFile('m_a.txt', Buffer.from('x'), 'text/plain', { metadata: { owner: 'alice' }, tags: { kind: 'doc' } });
  assert.deepEqual(await a.getMetadata('m_a.txt'), { metadata: { owner: 'alice' }, tags: { kind: 'doc' } });
  await a.createFile('dir/m_b.txt', Buffer.from('y'), 'text/plain', { metadata: {} });
  assert.deepEqual(await a.getMetadata('dir/m_b.txt'), { metadata: {}, tags: {} });
  assert.deepEqual(await a.getMetadata('nope.txt'), {});
  await a.deleteFile('m_a.txt');
  assert.deepEqual(await a.getMetadata('m_a.txt'), {});
  assert.equal((await a.getFileData('dir/m_b.txt')).toString(), 'y');
});

test('pinIPFS stores the bytes under their CID, once', async () => {
  const a = new DevFilesAdapter();
  await a.createFile('p_a.txt', Buffer.from('hello'), 'text/plain', {});
  await a.createFile('p_b.txt', Buffer.from('hello'), 'text/plain', {});
  assert.equal(await a.pinIPFS('p_a.txt'), HELLO_CID);
  assert.equal(await a.pinIPFS('p_b.txt'), HELLO_CID);
  assert.equal((await a.readIPFS(HELLO_CID)).toString(), 'hello');
  assert.equal(await a.readIPFS(EMPTY_CID), null);
  assert.deepEqual(fs.readdirSync('ipfs'), [HELLO_CID]);
});

// serve runs ipfsMiddleware before a stand-in of parse-server's upload route (which sets req.fileData and
// answers 201 {url, name} as parse-server does) and returns the base URL.
async function serve(t, adapter) {
  const app = express();
  app.use(ipfsMiddleware({ adapter, mountPath: '/parse', gatewayBase: 'http://gw.example' }));
  app.post('/parse/files/:name', express.json({ type: () => true }), async (req, res) => {
    req.fileData = req.body.fileData;
    if (req.params.name === 'fail.txt') {
      res.status(400).json({ code: 130, error: 'no' });
      return;
    }
    if (req.params.name === 'not-created.txt') {
      res.status(200).json({ name: 'x_not-created.txt', url: 'http://files.example/x_not-created.txt' });
      return;
    }
    const name = 'x_' + req.params.name;
    await adapter.createFile(name, Buffer.from(req.body.base64, 'base64'), 'text/plain', {});
    res.status(201).json({ url: 'http://files.example/' + name, name });
  });
  const srv = http.createServer(app);
  await new Promise(r => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  return `http://127.0.0.1:${srv.address().port}`;
}

async function upload(base, name, data, fileData) {
  const res = await fetch(`${base}/parse/files/${name}`, {
    method: 'POST',
    body: JSON.stringify({ base64: Buffer.from(data).toString('base64'), fileData }),
  });
  return { status: res.status, body: await res.json() };
}

test('an upload asking for IPFS is answered with hash and ipfs, and the gateway serves it', async t => {
  const base = await serve(t, new DevFilesAdapter());
  const data = 'gateway ' + crypto.randomBytes(8).toString('hex');
  const cid = cidByHand(Buffer.from(data));
  let r = await upload(base, 'g.txt', data, { ipfs: true, metadata: {}, tags: {} });
  assert.equal(r.status, 201);
  assert.deepEqual(r.body, { url: 'http://files.example/x_g.txt', name: 'x_g.txt', ipfs: 'http://gw.example/ipfs/' + cid, hash: cid });

  const got = await fetch(`${base}/ipfs/${cid}`);
  assert.equal(got.status, 200);
  assert.equal(got.headers.get('content-type'), 'application/octet-stream');
  assert.equal(got.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(await got.text(), data);
  const head = await fetch(`${base}/ipfs/${cid}`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(data)));

  // Without the flag (or with a truthy non-true value) nothing is pinned; error answers pass through.
  for (const fileData of [undefined, { ipfs: 'true' }, { metadata: {} }]) {
    r = await upload(base, 'n.txt', 'not pinned ' + crypto.randomBytes(8).toString('hex'), fileData);
    assert.equal(r.status, 201);
    assert.equal(r.body.hash, undefined);
  }
  r = await upload(base, 'fail.txt', 'x', { ipfs: true });
  assert.deepEqual(r, { status: 400, body: { code: 130, error: 'no' } });
  r = await upload(base, 'not-created.txt', 'x', { ipfs: true });
  assert.deepEqual(r, { status: 200, body: { name: 'x_not-created.txt', url: 'http://files.example/x_not-created.txt' } });

  for (const [p, status] of [[`/ipfs/${cidByHand(Buffer.from('absent'))}`, 404], ['/ipfs/nope', 400], ['/ipfs/..%2Ffiles%2Fx_g.txt', 400], [`/ipfs/${cid.toUpperCase()}`, 400]]) {
    assert.equal((await fetch(base + p)).status, status, p);
  }
});

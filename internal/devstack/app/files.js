'use strict';
// The devstack's files: parse-server's FileSystemAdapter (the bytes under ./files of the state directory, the
// process's working directory) plus what a Moralis v1 server adds to Parse files.
//
// Metadata and tags. The Parse JS SDK (and moralis-v1) upload a file as a JSON body {base64, _ContentType,
// fileData: {metadata, tags, ipfs}}; parse-server hands fileData.metadata and fileData.tags to createFile as
// options.metadata and options.tags. DevFilesAdapter keeps them beside the file, in ./files-meta/{name}.json, and
// answers them from getMetadata, which parse-server serves at GET {mount}/files/{appId}/metadata/{name} as
// {metadata, tags} ({} for a file it does not have).
//
// IPFS. moralis-v1's saveIPFS() sends fileData.ipfs = true; the Moralis server stored such a file on IPFS too and
// answered {name, url, ipfs, hash}: hash the CID, ipfs its gateway URL. parse-server passes neither the flag to
// the adapter nor extra fields back to the client, so ipfsMiddleware (run before parse-server's routes) does it:
// on a successful upload that asked for IPFS it has the adapter pin the stored bytes under ./ipfs/{cid} and adds
// hash and ipfs to the answer; it also serves GET/HEAD /ipfs/{cid} (the gateway), so all of it works offline.
//
// CIDs are CIDv1, codec raw (0x55), multihash sha2-256, in base32 ("bafkrei..."): what `ipfs add
// --cid-version=1` gives a file that fits in one block. Here the whole file is one raw block whatever its size
// (the local stack never exchanges blocks with other nodes). The hosted Moralis server answered CIDv0 ("Qm...",
// dag-pb); a client treats the hash as an opaque CID string either way. multiformats (the IPFS project's own
// implementation of CIDs, multihashes and multibase) computes them, so the format is not hand-rolled here.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { FileSystemAdapter } = require('parse-server');
// ESM-only package; Node >= 20.19 loads it through require (its exports carry the "module-sync" condition).
const { CID } = require('multiformats/cid');
const raw = require('multiformats/codecs/raw');
const { sha256 } = require('multiformats/hashes/sha2');

const META_DIR = 'files-meta';
const IPFS_DIR = 'ipfs';
// Parse.Error.FILE_SAVE_ERROR
const FILE_SAVE_ERROR = 130;

// cidOf returns the CIDv1 (raw, sha2-256) of data as its base32 string.
async function cidOf(data) {
  return CID.create(1, raw.code, await sha256.digest(data)).toString();
}

// canonicalCID returns s when it is a CID in its canonical base32 form, else null (so that it is safe as a
// file name: base32 letters and digits only).
function canonicalCID(s) {
  try {
    const cid = CID.parse(s);
    return cid.version === 1 && cid.toString() === s ? s : null;
  } catch {
    return null;
  }
}

// writeOnce writes data to file atomically (a temporary file renamed into place) unless it exists already.
// Several server processes share the directory; content addressing makes every writer's bytes the same.
async function writeOnce(file, data) {
  try {
    await fs.promises.access(file);
    return;
  } catch {
    // absent: write it
  }
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  await fs.promises.writeFile(tmp, data);
  await fs.promises.rename(tmp, file);
}

function plainObject(v) {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

class DevFilesAdapter extends FileSystemAdapter {
  constructor(options) {
    super(options);
    this._metaDir = META_DIR;
    this._ipfsDir = IPFS_DIR;
  }

  _metaPath(filename) {
    return path.join(this._metaDir, encodeURIComponent(filename) + '.json');
  }

  async createFile(filename, data, contentType, options) {
    await super.createFile(filename, data);
    const metadata = plainObject(options && options.metadata);
    const tags = plainObject(options && options.tags);
    if (Object.keys(metadata).length > 0 || Object.keys(tags).length > 0) {
      await fs.promises.mkdir(this._metaDir, { recursive: true });
      await fs.promises.writeFile(this._metaPath(filename), JSON.stringify({ metadata, tags }));
    }
    return data;
  }

  async deleteFile(filename) {
    const data = await super.deleteFile(filename);
    await fs.promises.unlink(this._metaPath(filename)).catch(() => {});
    return data;
  }

  // getMetadata answers {metadata, tags} of a stored file (empty objects when it was stored without), {} when
  // there is no such file.
  async getMetadata(filename) {
    try {
      return JSON.parse(await fs.promises.readFile(this._metaPath(filename), 'utf8'));
    } catch {
      // no metadata kept: the file may still exist
    }
    try {
      await fs.promises.access(this._getLocalFilePath(filename));
      return { metadata: {}, tags: {} };
    } catch {
      return {};
    }
  }

  // pinIPFS stores the bytes of the stored file filename content-addressed and returns their CID.
  async pinIPFS(filename) {
    const data = await this.getFileData(filename);
    const cid = await cidOf(data);
    await writeOnce(path.join(this._ipfsDir, cid), data);
    return cid;
  }

  // readIPFS returns the bytes stored under cid (a canonical CID string), or null.
  async readIPFS(cid) {
    try {
      return await fs.promises.readFile(path.join(this._ipfsDir, cid));
    } catch {
      return null;
    }
  }
}

// ipfsMiddleware is an express middleware for the app that mounts parse-server at mountPath (ParseServer's
// options.middleware runs it first): the IPFS side of uploads under {mountPath}/files/ and the gateway at
// /ipfs/{cid}, whose URLs start with gatewayBase (e.g. http://127.0.0.1:1337).
function ipfsMiddleware({ adapter, mountPath, gatewayBase }) {
  const filesPrefix = mountPath.replace(/\/+$/, '') + '/files/';
  return function ipfs(req, res, next) {
    if ((req.method === 'GET' || req.method === 'HEAD') && req.path.startsWith('/ipfs/')) {
      serveBlock(adapter, req, res).catch(next);
      return;
    }
    if (req.method === 'POST' && req.path.startsWith(filesPrefix)) {
      // parse-server answers a stored upload with res.status(201).json({url, name}) once its middlewares have
      // set req.fileData from the JSON body; the answer is held back until the pin is done.
      res.json = function (body) {
        delete res.json; // back to express's own json
        if (res.statusCode !== 201 || !req.fileData || req.fileData.ipfs !== true || !body || typeof body.name !== 'string') {
          return res.json(body);
        }
        adapter.pinIPFS(body.name).then(
          cid => res.json({ ...body, ipfs: `${gatewayBase}/ipfs/${cid}`, hash: cid }),
          err => {
            res.status(400);
            res.json({ code: FILE_SAVE_ERROR, error: `Could not store file on IPFS: ${body.name}: ${err.message}` });
          }
        );
        return res;
      };
    }
    next();
  };
}

async function serveBlock(adapter, req, res) {
  const rest = req.path.slice('/ipfs/'.length);
  const cid = canonicalCID(rest);
  if (!cid) {
    res.status(400).type('text/plain').send('invalid CID (want a CIDv1 in base32)\n');
    return;
  }
  const data = await adapter.readIPFS(cid);
  if (!data) {
    res.status(404).type('text/plain').send(`${cid}: not found\n`);
    return;
  }
  // A raw block has no content type; nosniff keeps a browser from running it as a page on this origin.
  res.set({
    'Content-Type': 'application/octet-stream',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'public, max-age=29030400, immutable',
    ETag: `"${cid}"`,
    'X-Ipfs-Path': `/ipfs/${cid}`,
  });
  res.status(200).send(data); // express leaves the body out of a HEAD answer
}

module.exports = { DevFilesAdapter, ipfsMiddleware, cidOf, canonicalCID };

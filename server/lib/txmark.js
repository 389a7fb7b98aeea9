'use strict';
// The atomic-batch proof of the Go SDK (contract point 6, feature txMark; client.Atomic in the Go package doc).
//
// parse-server answers a transactional /batch that it rolled back with a bare 500 "Internal server error.", the
// same answer a failure after the commit would give, and an answer can be lost: the client cannot tell "nothing
// happened" from "all saved". So the SDK adds to each atomic batch one create of a MoralisGoTxMark row carrying a
// random mark (24 letters and digits); this module's beforeSave makes the mark the row's objectId. The row is
// committed with the batch or rolled back with it. After an ambiguous answer the SDK calls
// moralisGoTxApplied({mark}), which inserts a fence row under the same objectId:
//   - the insert fails as a duplicate (137): the batch's row is there, the batch committed: {applied: true}
//     (a fence left by an earlier call of the function answers {applied: false} again);
//   - the insert succeeds: the batch did not commit, and never will: should its transaction still be running, its
//     own insert of that objectId now fails and rolls it back: {applied: false}. A transaction that inserted the
//     row and has not ended yet holds the key, and the fence's insert waits for it to end.
// The primary key does the work, on PostgreSQL and on MongoDB alike; no index to add, no private module.
//
// moralisGoCheckWrites({requests}) tells which write of a batch the class schemas refuse, with parse-server's own
// code and text (111, "schema mismatch for C.f; expected X but got Y"), so that the SDK can name the item that
// rolled a batch back; it checks only writes the caller's class-level permissions let it make.
//
// The class: fields mark (String), expiresAt (Date) and fence (Boolean, set by the master key only); public
// create only, everything else master-only; an empty ACL on every row. Rows expire (a batch's mark after an hour,
// a fence after a day: a transaction cannot outlive it) and are purged every minute (startPurging). The class is made
// with its fields by the package's set-up (setup.js, through Parse.Schema) before the feature txMark is reported on:
// a transaction never adds a field (parse-server adds a new field outside the transaction and waits for it: such a
// batch hangs), so the SDK adds marks only once the class is complete.
const CLASS = 'MoralisGoTxMark';
const MARK_RE = /^[A-Za-z0-9]{24}$/;
const MARK_TTL_MS = 60 * 60 * 1000;
const FENCE_TTL_MS = 24 * 60 * 60 * 1000;
const FIELDS = { mark: 'String', expiresAt: 'Date', fence: 'Boolean' };
const CLP = {
  find: {},
  count: {},
  get: {},
  create: { '*': true },
  update: {},
  delete: {},
  addField: {},
  protectedFields: {},
};
const INDEXES = { expiresAt_1: { expiresAt: 1 } };
// How many writes moralisGoCheckWrites checks at most (an atomic batch of the SDK holds Config.BatchSize).
const MAX_CHECKED = 100;

function invalid(message) {
  return new Parse.Error(Parse.Error.VALIDATION_ERROR, `${CLASS}: ${message}`);
}

// beforeSave accepts only a create with a well-formed mark (and fence from the master key), makes the mark the
// row's objectId, sets its expiry and an empty ACL.
function beforeSave(req) {
  const o = req.object;
  if (req.original) {
    throw invalid('rows are never changed');
  }
  for (const key of o.dirtyKeys()) {
    if (key !== 'mark' && key !== 'fence' && key !== 'ACL') {
      throw invalid(`unknown field ${key}`);
    }
  }
  const mark = o.get('mark');
  if (typeof mark !== 'string' || !MARK_RE.test(mark)) {
    throw invalid('mark must be 24 letters and digits');
  }
  const fence = o.get('fence');
  if (fence !== undefined && (fence !== true || !req.master)) {
    throw invalid('fence is set by the master key only');
  }
  o.id = mark;
  o.set('expiresAt', new Date(Date.now() + (fence ? FENCE_TTL_MS : MARK_TTL_MS)));
  o.setACL(new Parse.ACL());
}

// applied answers moralisGoTxApplied: whether the batch that carried mark committed (see the top of the file).
async function applied(params) {
  const mark = params && params.mark;
  if (typeof mark !== 'string' || !MARK_RE.test(mark)) {
    throw invalid('mark must be 24 letters and digits');
  }
  const fence = new Parse.Object(CLASS);
  fence.set('mark', mark);
  fence.set('fence', true);
  try {
    await fence.save(null, { useMasterKey: true });
    return { applied: false };
  } catch (err) {
    if (!err || err.code !== Parse.Error.DUPLICATE_VALUE) {
      throw err;
    }
  }
  const row = await new Parse.Query(CLASS).get(mark, { useMasterKey: true });
  return { applied: row.get('fence') !== true };
}

// classOf is the class a batch sub-request's path writes ("classes/C", "classes/C/id", "users", with or
// without the mount path), or "" for any other route.
function classOf(path) {
  const m = /(?:^|\/)(classes\/([A-Za-z_][A-Za-z0-9_]*)|users|roles|installations|sessions)(?:\/[^/]*)?$/.exec(path);
  if (!m) {
    return '';
  }
  return m[2] || { users: '_User', roles: '_Role', installations: '_Installation', sessions: '_Session' }[m[1]];
}

// typeOf is the type parse-server's schema check gives a value of a save body (its getType), null for none
// (null, a Delete op); it throws parse-server's 111 for a typed value it cannot read.
function typeOf(v) {
  if (v === null || v === undefined) {
    return null;
  }
  switch (typeof v) {
    case 'boolean':
      return 'Boolean';
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'object':
      return objectTypeOf(v);
  }
  return null;
}

function objectTypeOf(o) {
  if (Array.isArray(o)) {
    return 'Array';
  }
  // A cloud function's params arrive decoded (parse-server's FunctionsRouter): a Pointer as a Parse.Object, a File
  // as a Parse.File, a Date as a Date.
  if (o instanceof Parse.Object) {
    return { type: 'Pointer', targetClass: o.className };
  }
  if (o instanceof Parse.File) {
    return 'File';
  }
  if (o instanceof Date) {
    return 'Date';
  }
  if (o.__type) {
    const has = k => o[k] !== undefined && o[k] !== null && o[k] !== '';
    switch (o.__type) {
      case 'Pointer':
      case 'Relation':
        if (has('className')) {
          return { type: o.__type, targetClass: o.className };
        }
        break;
      case 'File':
        if (has('name')) return 'File';
        break;
      case 'Date':
        if (has('iso')) return 'Date';
        break;
      case 'GeoPoint':
        if (o.latitude != null && o.longitude != null) return 'GeoPoint';
        break;
      case 'Bytes':
        if (has('base64')) return 'Bytes';
        break;
      case 'Polygon':
        if (has('coordinates')) return 'Polygon';
        break;
    }
    throw new Parse.Error(Parse.Error.INCORRECT_TYPE, 'This is not a valid ' + o.__type);
  }
  switch (o.__op) {
    case undefined:
      return 'Object';
    case 'Increment':
      return 'Number';
    case 'Add':
    case 'AddUnique':
    case 'Remove':
      return 'Array';
    case 'AddRelation':
    case 'RemoveRelation':
      if (Array.isArray(o.objects) && o.objects[0] && typeof o.objects[0] === 'object') {
        return { type: 'Relation', targetClass: o.objects[0].className };
      }
      return null;
    case 'Batch':
      return Array.isArray(o.ops) && o.ops.length > 0 ? typeOf(o.ops[0]) : null;
  }
  return null;
}

// typeName is parse-server's typeToString: "Pointer<_User>", "Number".
function typeName(t) {
  const n = typeof t === 'string' ? { type: t } : t;
  return n.targetClass ? `${n.type}<${n.targetClass}>` : `${n.type}`;
}

function sameType(want, got) {
  const w = typeof want === 'string' ? { type: want } : want;
  const g = typeof got === 'string' ? { type: got } : got;
  return (w.type === 'map' ? 'Object' : w.type) === g.type && (w.targetClass || undefined) === (g.targetClass || undefined);
}

// permits reports whether the caller's class-level permissions let it make op on a class ("create", "update"),
// as far as can be told without its roles: public, or any signed-in user, or this user.
function permits(clp, op, req) {
  if (req.master || !clp || !clp[op]) {
    return true;
  }
  const perm = clp[op];
  return perm['*'] === true || (req.user && (perm.requiresAuthentication === true || perm[req.user.id] === true));
}

// checkWrites answers moralisGoCheckWrites: {index, code, error} of the first request (POST or PUT of an object)
// whose body the class schema refuses, or {}.
async function checkWrites(req) {
  const requests = req.params && req.params.requests;
  if (!Array.isArray(requests) || requests.length > MAX_CHECKED) {
    throw invalid(`requests must be an array of at most ${MAX_CHECKED}`);
  }
  const schemas = new Map();
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i];
    if (!r || typeof r !== 'object' || typeof r.path !== 'string' || !r.body || typeof r.body !== 'object') {
      continue;
    }
    const op = { POST: 'create', PUT: 'update' }[String(r.method).toUpperCase()];
    const className = classOf(r.path);
    if (!op || !className) {
      continue;
    }
    if (!schemas.has(className)) {
      schemas.set(className, await new Parse.Schema(className).get().catch(() => null));
    }
    const schema = schemas.get(className);
    if (!schema || !schema.fields || !permits(schema.classLevelPermissions, op, req)) {
      continue;
    }
    for (const field of Object.keys(r.body)) {
      if (field === 'ACL' || field.includes('.')) {
        continue;
      }
      let got;
      try {
        got = typeOf(r.body[field]);
      } catch (err) {
        return { index: i, code: err.code, error: err.message };
      }
      const want = schema.fields[field];
      if (got && want && !sameType(want, got)) {
        return {
          index: i,
          code: Parse.Error.INCORRECT_TYPE,
          error: `schema mismatch for ${className}.${field}; expected ${typeName(want)} but got ${typeName(got)}`,
        };
      }
    }
  }
  return {};
}

// PURGE_EVERY_MS is how often expired rows are purged; PURGE_PAGES how many pages of 1,000 one run deletes.
const PURGE_EVERY_MS = 60 * 1000;
const PURGE_PAGES = 10;

// purgeExpired deletes expired rows through the public API, up to PURGE_PAGES pages of 1,000; it returns how many.
async function purgeExpired(now = new Date()) {
  let total = 0;
  for (let page = 0; page < PURGE_PAGES; page++) {
    const rows = await new Parse.Query(CLASS).lessThan('expiresAt', now).limit(1000).find({ useMasterKey: true });
    if (rows.length === 0) {
      break;
    }
    await Parse.Object.destroyAll(rows, { useMasterKey: true });
    total += rows.length;
    if (rows.length < 1000) {
      break;
    }
  }
  return total;
}

// startPurging runs purgeExpired every PURGE_EVERY_MS until the process ends; failures are logged.
function startPurging() {
  const timer = setInterval(() => {
    purgeExpired().catch(err => console.error(`moralis-go-server: purging ${CLASS}:`, err && err.message));
  }, PURGE_EVERY_MS);
  timer.unref();
  return timer;
}

module.exports = { CLASS, FIELDS, CLP, INDEXES, beforeSave, applied, checkWrites, purgeExpired, startPurging, typeOf, classOf };

'use strict';
// parse-server's logger (loaded when a test reaches parse-server's modules through NODE_PATH) would otherwise make
// ./logs in the working directory.
process.env.PARSE_SERVER_LOGS_FOLDER = process.env.PARSE_SERVER_LOGS_FOLDER || 'null';
// fakeParse: the part of parse-server's Parse SDK the package uses, over an in-memory store, for unit tests. It keeps
// what the package relies on: a get or delete of a missing row answers 101, a delete removes a row once (of any
// number of concurrent deletes, one succeeds), queries see what was saved before they ran, the master key is passed.
// Every call is recorded in calls ({op, className, ...}); fail(op, err) makes the next calls of op fail with err.

class ParseError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
Object.assign(ParseError, {
  OTHER_CAUSE: -1,
  INTERNAL_SERVER_ERROR: 1,
  OBJECT_NOT_FOUND: 101,
  INVALID_CLASS_NAME: 103,
  INVALID_JSON: 107,
  OPERATION_FORBIDDEN: 119,
  SCRIPT_FAILED: 141,
  VALIDATION_ERROR: 142,
  REQUEST_LIMIT_EXCEEDED: 155,
});

function fakeParse({ applicationId = 'app', masterKey = 'master' } = {}) {
  const classes = new Map(); // className -> Map(id -> fields)
  const calls = [];
  const failures = new Map();
  let next = 0;
  const table = name => {
    if (!classes.has(name)) {
      classes.set(name, new Map());
    }
    return classes.get(name);
  };
  const tick = () => new Promise(resolve => setImmediate(resolve));
  const maybeFail = op => {
    if (failures.has(op)) {
      throw failures.get(op);
    }
  };
  const requireMaster = (op, options) => {
    if (!options || options.useMasterKey !== true) {
      throw new Error(`fakeParse: ${op} without useMasterKey`);
    }
  };

  class ParseObject {
    constructor(className, attrs) {
      this.className = className;
      this.id = undefined;
      this.attributes = { ...(attrs || {}) };
      this.acl = undefined;
    }
    get(k) {
      return this.attributes[k];
    }
    set(k, v) {
      if (typeof k === 'object') {
        Object.assign(this.attributes, k);
      } else {
        this.attributes[k] = v;
      }
      return this;
    }
    setACL(acl) {
      this.acl = acl;
    }
    async save(_, options) {
      requireMaster('save', options);
      calls.push({ op: 'save', className: this.className, id: this.id, attrs: { ...this.attributes } });
      await tick();
      maybeFail('save');
      if (!this.id) {
        this.id = `obj${String(++next).padStart(7, '0')}`;
      }
      table(this.className).set(this.id, { ...this.attributes });
      return this;
    }
    async destroy(options) {
      requireMaster('destroy', options);
      calls.push({ op: 'destroy', className: this.className, id: this.id });
      await tick();
      maybeFail('destroy');
      if (!table(this.className).delete(this.id)) {
        throw new ParseError(101, 'Object not found.');
      }
    }
    static async destroyAll(list, options) {
      requireMaster('destroyAll', options);
      const errors = [];
      for (const o of list) {
        try {
          await o.destroy(options);
        } catch (err) {
          errors.push(err);
        }
      }
      if (errors.length) {
        const e = new Error('destroyAll');
        e.errors = errors;
        throw e;
      }
    }
  }

  class Query {
    constructor(className) {
      this.className = className;
      this.where = [];
      this.max = 100;
    }
    equalTo(k, v) {
      this.where.push(o => o[k] === v);
      return this;
    }
    lessThan(k, v) {
      this.where.push(o => o[k] instanceof Date && o[k] < v);
      return this;
    }
    greaterThan(k, v) {
      this.where.push(o => o[k] instanceof Date && o[k] > v);
      return this;
    }
    select() {
      return this;
    }
    limit(n) {
      this.max = n;
      return this;
    }
    rows() {
      const out = [];
      for (const [id, fields] of table(this.className)) {
        if (this.where.every(f => f(fields))) {
          const o = new ParseObject(this.className, fields);
          o.id = id;
          out.push(o);
        }
      }
      return out;
    }
    async get(id, options) {
      requireMaster('get', options);
      calls.push({ op: 'get', className: this.className, id });
      await tick();
      maybeFail('get');
      const fields = table(this.className).get(id);
      if (!fields) {
        throw new ParseError(101, 'Object not found.');
      }
      const o = new ParseObject(this.className, fields);
      o.id = id;
      return o;
    }
    async find(options) {
      requireMaster('find', options);
      calls.push({ op: 'find', className: this.className });
      await tick();
      maybeFail('find');
      return this.rows().slice(0, this.max);
    }
    async first(options) {
      return (await this.find(options))[0];
    }
    async count(options) {
      requireMaster('count', options);
      calls.push({ op: 'count', className: this.className });
      await tick();
      maybeFail('count');
      return this.rows().length;
    }
  }

  class ACL {}

  // Schema: class schemas by name ({fields, classLevelPermissions, indexes}); get of a missing class answers 103.
  const schemas = new Map();
  class Schema {
    constructor(className) {
      this.className = className;
      this.fields = {};
      this.indexes = {};
      this.clp = undefined;
    }
    async get() {
      calls.push({ op: 'schema.get', className: this.className });
      await tick();
      maybeFail('schema.get');
      if (!schemas.has(this.className)) {
        throw new ParseError(103, `Class ${this.className} does not exist.`);
      }
      return structuredClone(schemas.get(this.className));
    }
    addField(name, type) {
      this.fields[name] = { type };
      return this;
    }
    addIndex(name, key) {
      this.indexes[name] = key;
      return this;
    }
    setCLP(clp) {
      this.clp = clp;
      return this;
    }
    async save() {
      calls.push({ op: 'schema.save', className: this.className, fields: this.fields, indexes: this.indexes, clp: this.clp });
      await tick();
      maybeFail('schema.save');
      if (schemas.has(this.className)) {
        throw new ParseError(103, `Class ${this.className} already exists.`);
      }
      schemas.set(this.className, { className: this.className, fields: { ...this.fields }, indexes: { ...this.indexes }, classLevelPermissions: this.clp });
    }
    async update() {
      calls.push({ op: 'schema.update', className: this.className, fields: this.fields, indexes: this.indexes, clp: this.clp });
      await tick();
      maybeFail('schema.update');
      const s = schemas.get(this.className);
      if (!s) {
        throw new ParseError(103, `Class ${this.className} does not exist.`);
      }
      for (const name of Object.keys(this.indexes)) {
        if (s.indexes[name]) {
          throw new ParseError(107, `Index ${name} exists, cannot update.`);
        }
      }
      Object.assign(s.fields, this.fields);
      Object.assign(s.indexes, this.indexes);
      if (this.clp) {
        s.classLevelPermissions = this.clp;
      }
    }
  }

  const defined = new Map();
  const triggers = [];
  return {
    applicationId,
    masterKey,
    Error: ParseError,
    Object: ParseObject,
    Query,
    ACL,
    Schema,
    Cloud: {
      define: (name, fn, validator) => defined.set(name, { fn, validator }),
      beforeSave: (cls, fn) => triggers.push({ kind: 'beforeSave', cls, fn }),
      beforeFind: (cls, fn) => triggers.push({ kind: 'beforeFind', cls, fn }),
    },
    // test helpers
    classes,
    calls,
    defined,
    triggers,
    table,
    schemas,
    fail: (op, err) => (err ? failures.set(op, err) : failures.delete(op)),
  };
}

module.exports = { fakeParse, ParseError };

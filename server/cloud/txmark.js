'use strict';
// The atomic-batch proof of the Go SDK (feature txMark): the MoralisGoTxMark trigger, moralisGoTxApplied and
// moralisGoCheckWrites. How they prove a batch's outcome is told in ../lib/txmark.js; the class is set up while the
// server starts (the package's ensureClasses), which turns the feature on.
const txmark = require('../lib/txmark');

Parse.Cloud.beforeSave(txmark.CLASS, req => txmark.beforeSave(req));

// moralisGoTxApplied({mark}) -> {applied: bool}: whether the atomic batch that carried mark committed. Any key
// may call it; the answer is final (the mark is fenced), and calling it again gives the same answer.
Parse.Cloud.define('moralisGoTxApplied', req => txmark.applied(req.params));

// moralisGoCheckWrites({requests: [{method, path, body}]}) -> {index, code, error} of the first write the class
// schema refuses (parse-server's own code and text), or {}. Any key may call it; it checks only writes the
// caller's class-level permissions allow, and changes nothing.
Parse.Cloud.define('moralisGoCheckWrites', req => txmark.checkWrites(req));

txmark.startPurging();

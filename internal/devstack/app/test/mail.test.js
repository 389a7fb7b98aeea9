'use strict';
// Unit test of the stack's mail adapter (mail.js). Run with the app's other tests:
// NODE_PATH=.devstack/server/node_modules node --test internal/devstack/app/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { JsonLineMailAdapter } = require('../mail');

test('mail adapter appends one JSON line per mail', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devstack-mail-'));
  const file = path.join(dir, 'mail.jsonl');
  const adapter = new JsonLineMailAdapter(file);
  const user = { get: k => ({ username: 'alice', email: 'alice@example.com' })[k] };
  await adapter.sendMail({ to: 'x@example.com', subject: 's', text: 't' });
  await adapter.sendPasswordResetEmail({ link: 'http://127.0.0.1/reset?token=abc', appName: 'app', user });
  await adapter.sendVerificationEmail({ link: 'http://127.0.0.1/verify?token=def', appName: 'app', user });
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map(l => JSON.parse(l));
  assert.deepEqual(lines.map(l => l.kind), ['mail', 'passwordReset', 'verifyEmail']);
  assert.equal(lines[1].to, 'alice@example.com');
  assert.equal(lines[1].link, 'http://127.0.0.1/reset?token=abc');
  assert.match(lines[1].text, /your username is 'alice'/);
  assert.equal(lines[2].subject, 'Please verify your e-mail for app');
  fs.rmSync(dir, { recursive: true });
});

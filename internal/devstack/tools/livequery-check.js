'use strict';
// Checks LiveQuery end to end: connects to the websocket, subscribes to a class, creates an object
// over REST and waits for the "create" event. Exits 0 on success, 1 with a reason otherwise.
//   node livequery-check.js <serverURL> <liveQueryURL> <appId> <jsKey> [className]
const path = require('path');
// ws is parse-server's own dependency; resolve it from there.
const WebSocket = require(require.resolve('ws', { paths: [path.dirname(require.resolve('parse-server/package.json'))] }));

const [serverURL, lqURL, appId, jsKey, className = 'LiveItem'] = process.argv.slice(2);
if (!serverURL || !lqURL || !appId || !jsKey) {
  console.error('usage: livequery-check.js <serverURL> <liveQueryURL> <appId> <jsKey> [className]');
  process.exit(2);
}
const marker = `lq-${Date.now()}-${Math.random().toString(36).slice(2)}`;
const timer = setTimeout(() => fail('no create event within 10 s'), 10000);

function fail(reason) {
  console.error(`livequery-check: ${reason}`);
  process.exit(1);
}

const ws = new WebSocket(lqURL);
ws.on('error', err => fail(`websocket error: ${err.message}`));
ws.on('open', () => ws.send(JSON.stringify({ op: 'connect', applicationId: appId, javascriptKey: jsKey })));
ws.on('message', async raw => {
  const msg = JSON.parse(raw.toString());
  if (msg.op === 'connected') {
    ws.send(JSON.stringify({ op: 'subscribe', requestId: 1, query: { className, where: { marker } } }));
  } else if (msg.op === 'subscribed') {
    const res = await fetch(`${serverURL}/classes/${className}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ marker, _ApplicationId: appId, _JavaScriptKey: jsKey }),
    });
    if (res.status !== 201) {
      fail(`create ${className} answered ${res.status}: ${await res.text()}`);
    }
  } else if (msg.op === 'create') {
    if (!msg.object || msg.object.marker !== marker || msg.object.className !== className) {
      fail(`unexpected create event ${JSON.stringify(msg)}`);
    }
    clearTimeout(timer);
    console.log(`livequery-check: create event for ${className} ${msg.object.objectId}`);
    ws.close();
    process.exit(0);
  } else if (msg.op === 'error') {
    fail(`server error ${JSON.stringify(msg)}`);
  }
});

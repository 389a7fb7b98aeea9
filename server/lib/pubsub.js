'use strict';
// LiveQuery's pub/sub through Redis, as parse-server's own RedisPubSub (liveQuery.redisURL), with two fixes.
//
// Resume: messages published while a LiveQuery server's subscriber was cut off from Redis are lost to its
// subscribers, and nothing tells them (their websocket stays up). When the subscriber connection comes back
// after a loss, onSubscriberResume is called; index.js then closes the LiveQuery server's websockets, so the
// clients reconnect, subscribe again and re-run their queries (the Go SDK's query/live catch-up), and converge.
//
// Publish failures: a publish that Redis does not complete (Redis restarted or unreachable) is logged instead
// of left as an unhandled promise rejection, and announced to every LiveQuery server, which resumes its clients as
// above. parse-server 9.10 publishes each save with `publisher.publish(...)` and never
// catches it; node-redis rejects the commands in flight when the connection resets, Node turns the rejection
// into an uncaught exception, and parse-server's handler exits the process: a Redis restart killed the
// instance (seen in internal/scaletest's Redis outage test). Everything else is parse-server's adapter.
const private_ = require('./private');

// parse-server's RedisPubSub (a private module: private.js), loaded when an adapter is made (not when the package is:
// loading parse-server's modules starts its logger, which makes ./logs in the working directory of any script that
// requires the package).
const redisPubSub = () => private_.get('RedisPubSub').RedisPubSub;

// RESUME_CHANNEL carries "some published messages were lost": every LiveQuery server subscribed with
// onSubscriberResume resumes its clients when a message arrives on it.
const RESUME_CHANNEL = 'moralis-go-server:livequery-resume';

// safeRedisPubSub returns a pubSubAdapter (for liveQuery.pubSubAdapter and liveQueryServerOptions.pubSubAdapter)
// over the Redis at redisURL. onSubscriberResume (optional) is called each time a subscriber's connection is
// ready again after an error, and each time any instance's publisher reports that a publish was lost.
//
// A publish can be lost on the publishing side alone: node-redis rejects the commands queued while it reconnects
// each time an attempt fails, so a save made just after Redis comes back may never be published although every
// LiveQuery server's subscriber is already back (and has already resumed its clients). The publisher therefore
// announces each loss on RESUME_CHANNEL as soon as it is connected again, and every LiveQuery server resumes.
function safeRedisPubSub(redisURL, { onSubscriberResume } = {}) {
  return {
    createPublisher(config = {}) {
      const client = redisPubSub().createPublisher({ redisURL, redisOptions: config.redisOptions });
      const publish = client.publish.bind(client);
      let lostSinceReady = false;
      const announceLoss = () =>
        publish(RESUME_CHANNEL, 'lost').catch(err => {
          lostSinceReady = true;
          console.error(`moralis-go-server: LiveQuery loss announcement failed: Redis: ${err && err.message}`);
        });
      client.on('ready', () => {
        if (lostSinceReady) {
          lostSinceReady = false;
          announceLoss();
        }
      });
      client.publish = (channel, message) =>
        publish(channel, message).catch(err => {
          console.error(`moralis-go-server: LiveQuery publish to ${channel} lost: Redis: ${err && err.message}`);
          if (client.isReady) {
            announceLoss();
          } else {
            lostSinceReady = true;
          }
        });
      return client;
    },
    createSubscriber(config = {}) {
      const client = redisPubSub().createSubscriber({ redisURL, redisOptions: config.redisOptions });
      let lost = false;
      let listening = false;
      let settleTimer;
      const resume = why => {
        console.error(`moralis-go-server: ${why}; messages may have been lost meanwhile`);
        if (onSubscriberResume) {
          onSubscriberResume();
        }
      };
      client.on('error', () => {
        lost = true;
      });
      client.on('ready', () => {
        if (onSubscriberResume && !listening) {
          // Once: node-redis subscribes again by itself after each reconnect.
          listening = true;
          client
            .subscribe(RESUME_CHANNEL, () => resume('a LiveQuery publish was lost'))
            .catch(err => {
              listening = false;
              console.error(`moralis-go-server: subscribing to ${RESUME_CHANNEL} failed: Redis: ${err && err.message}`);
            });
        }
        if (lost) {
          lost = false;
          resume('LiveQuery subscriber back on Redis');
          // Once more when the reconnections have settled: 'ready' can come before the channels are subscribed
          // again, and the other instances' publishers reconnect in any order, so a message published in that
          // window is lost after this resume (seen in the Redis outage test, 1 object in 30, about 1 run in 3).
          clearTimeout(settleTimer);
          settleTimer = setTimeout(() => resume('LiveQuery pub/sub settled after a loss'), 2000);
          settleTimer.unref();
        }
      });
      return client;
    },
  };
}

// liveQueryRedis returns the LiveQuery options that make the pub/sub go through the Redis at redisURL, to spread into
// parse-server's liveQuery and liveQueryServerOptions: {pubSubAdapter: safeRedisPubSub(...)} when parse-server's
// RedisPubSub has the shape the wrapper uses, else {redisURL} (parse-server's own adapter, without the two fixes),
// with one log line saying so. Either way a save through any instance reaches the subscribers of every instance.
let fallbackTold = false;
function liveQueryRedis(redisURL, options = {}, log = line => console.error(line)) {
  const off = private_.featureOff('livequeryRedis');
  if (!off) {
    return { pubSubAdapter: safeRedisPubSub(redisURL, options) };
  }
  if (!fallbackTold) {
    fallbackTold = true;
    log(`moralis-go-server: LiveQuery uses parse-server's own Redis pub/sub, without the package's fixes (a Redis restart may end the process; clients are not told of lost events): ${off}`);
  }
  return { redisURL };
}

// closeLiveQueryClients closes every websocket of a parse-server LiveQuery server (ParseServer's liveQueryServer)
// with close code 1012 (service restart), so each client reconnects, subscribes again and re-runs its queries instead
// of silently missing what was published while the pub/sub was away: give it as liveQueryRedis's
// onSubscriberResume. It returns how many it closed. It reads the LiveQuery server's clients (parse-server's
// ParseLiveQueryServer.clients, each with parseWebSocket.ws): when that shape is not there, it closes none and
// says so in the log.
function closeLiveQueryClients(liveQueryServer, log = line => console.error(line)) {
  const clients = liveQueryServer && liveQueryServer.clients;
  if (!clients || typeof clients.values !== 'function') {
    log('moralis-go-server: no LiveQuery clients to close (no LiveQuery server, or its clients are not where parse-server 5 to 9 keep them)');
    return 0;
  }
  let n = 0;
  for (const client of clients.values()) {
    const ws = client && client.parseWebSocket && client.parseWebSocket.ws;
    if (ws && typeof ws.close === 'function') {
      ws.close(1012, 'LiveQuery pub/sub resumed: reconnect and re-run your queries');
      n++;
    }
  }
  log(`moralis-go-server: closed ${n} LiveQuery connections so that their clients catch up`);
  return n;
}

module.exports = { safeRedisPubSub, liveQueryRedis, closeLiveQueryClients };

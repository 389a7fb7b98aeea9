'use strict';
// LiveQuery's pub/sub through Redis, as parse-server's own RedisPubSub (liveQuery.redisURL), with two fixes.
//
// Resume: messages published while a LiveQuery server's subscriber was cut off from Redis are lost to its
// subscribers, and nothing tells them (their websocket stays up). When the subscriber connection comes back
// after a loss, onSubscriberResume is called; index.js then closes the LiveQuery server's websockets, so the
// clients reconnect, subscribe again and re-run their queries (the Go SDK's query/live catch-up), and converge.
//
// Publish failures: a publish that Redis does not complete (Redis restarted or unreachable) is logged instead
// of left as an unhandled promise rejection. parse-server 9.10 publishes each save with `publisher.publish(...)` and never
// catches it; node-redis rejects the commands in flight when the connection resets, Node turns the rejection
// into an uncaught exception, and parse-server's handler exits the process: a Redis restart killed the
// instance (seen in internal/scaletest's Redis outage test). Everything else is parse-server's adapter.
const { RedisPubSub } = require('parse-server/lib/Adapters/PubSub/RedisPubSub');

// safeRedisPubSub returns a pubSubAdapter (for liveQuery.pubSubAdapter and liveQueryServerOptions.pubSubAdapter)
// over the Redis at redisURL. onSubscriberResume (optional) is called each time a subscriber's connection is
// ready again after an error.
function safeRedisPubSub(redisURL, { onSubscriberResume } = {}) {
  return {
    createPublisher(config = {}) {
      const client = RedisPubSub.createPublisher({ redisURL, redisOptions: config.redisOptions });
      const publish = client.publish.bind(client);
      client.publish = (channel, message) =>
        publish(channel, message).catch(err => {
          console.error(`devstack server: LiveQuery publish to ${channel} lost: Redis: ${err && err.message}`);
        });
      return client;
    },
    createSubscriber(config = {}) {
      const client = RedisPubSub.createSubscriber({ redisURL, redisOptions: config.redisOptions });
      let lost = false;
      client.on('error', () => {
        lost = true;
      });
      client.on('ready', () => {
        if (lost) {
          lost = false;
          console.error('devstack server: LiveQuery subscriber back on Redis; messages may have been lost meanwhile');
          if (onSubscriberResume) {
            onSubscriberResume();
          }
        }
      });
      return client;
    },
  };
}

module.exports = { safeRedisPubSub };

// Package rrproxy is a small round-robin HTTP reverse proxy on 127.0.0.1 for tests that run several
// instances of a server behind one address, as a load balancer would in production.
//
// [New] starts the proxy at once. Every request goes to the next target in turn (target 0 first),
// chosen per request, not per connection: a client that keeps its connection to the proxy alive
// still alternates between targets. The proxy counts the requests it sent to each target
// ([Proxy.Counts]) and names the target of every answer in the [TargetHeader] response header, so a
// test can tell which instance answered without changing the servers. The incoming Host header is
// kept, as load balancers usually do; X-Forwarded-For, -Host and -Proto are set.
//
// It is for tests only: no health checks, no retries (a target that does not answer gives 502).
// A Proxy is safe for concurrent use.
package rrproxy

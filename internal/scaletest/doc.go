// Package scaletest holds the tests of the scaled topology that internal/devstack starts (two
// parse-servers with LiveQuery over Redis pub/sub, HAProxy in front of them, PostgreSQL): no live
// event lost across instances (build tag integration, run by make test), and the fault runs that kill
// a parse-server or stop Redis (build tag faults, run by make test-faults after every other suite,
// since they take down parts of the shared stack). It has no code of its own.
package scaletest

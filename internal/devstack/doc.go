// Package devstack finds the local backend stack that internal/devstack/up.sh (`make up`) runs on
// 127.0.0.1: PostgreSQL with PostGIS and parse-server 9.10 configured like a Moralis v1 server, run
// as two instances over the one database (Env.ServerURL and Env.ServerURL2), each with a LiveQuery
// server whose pub/sub goes through Redis (Env.RedisURL), behind HAProxy (Env.LBURL), for tests of
// several endpoint machines.
//
// up.sh records the stack's addresses and keys in <repo>/.devstack/env as shell KEY=VALUE lines
// (MORALIS_SERVER_URL, MORALIS_SERVER_URL_2, MORALIS_APP_ID, MORALIS_JS_KEY, MORALIS_MASTER_KEY, MORALIS_LIVEQUERY_URL,
// MORALIS_MAIL_FILE, MORALIS_PG_URL, and for the scaled topology MORALIS_LIVEQUERY_URL_2, MORALIS_REDIS_URL,
// MORALIS_LB_URL, MORALIS_LB_LIVEQUERY_URL, MORALIS_ENDPOINT_LB_URL, MORALIS_ENDPOINT_ADDR_1 and _2). [Load] reads that file, found by walking up from the working
// directory, or in the directory named by MORALIS_DEVSTACK_DIR; environment variables with the same
// names override single values. Integration tests call [MustLoad], which fails the test (it never
// skips) with the reason when the stack is not running.
//
// The package imports only the standard library and is safe for concurrent use: it keeps no state.
package devstack

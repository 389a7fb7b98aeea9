package web3api

//go:generate go run ./internal/gen -out endpoints_gen.go -test endpoints_gen_test.go -js ../server/cloud/web3.gen.js

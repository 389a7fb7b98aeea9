package authserver

//go:generate go run ./internal/wiregen -out ../react-hooks/src/core/wire.gen.ts
//go:generate go run ./internal/formatgen -go formats.gen.go -gotest formats.gen_test.go -js ../server/lib/formats.gen.js

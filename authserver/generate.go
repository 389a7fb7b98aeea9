package authserver

//go:generate go run ./internal/wiregen -out ../react-hooks/src/core/wire.gen.ts

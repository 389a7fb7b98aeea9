package main

func allSteps(d *demo) []step {
	steps := []step{
		{"wallet sign-in: Ethereum, with a generated dev key", d.signIn},
		{"Solana: link an address to the user, then unlink it", d.linkSolana},
		{"objects: create, update with field operations, read back, delete", d.objects},
		{"batch: SaveAll of many rows", d.batch},
		{"query: typed results, a count", d.query},
		{"iterator: every row, page by page", d.iterate},
		{"file: upload, download, attach to an object", d.file},
		{"cloud function: getServerTime and echo", d.cloud},
		{"job: start simpleJob with the master key and wait for it", d.job},
		{"analytics: custom event and app opened", d.analytics},
		{"local store: pin, query offline, sync with the server", d.pinning},
	}
	if d.chain.ok() {
		steps = append(steps,
			step{"transfers: native and ERC-20 on the local chain", d.transfers},
			step{"chain data: balances, tokens and transfers read back through web3api", d.readBack})
	}
	return steps
}

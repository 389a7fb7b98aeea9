// Package moralis is the one entry point of moralis-go, as the original's Moralis.start is: Start makes, from one
// Config, the backend client (package client), the chain-data client (package web3api) and the keeper of the
// signed-in user (client.CurrentUser), wired together.
//
//	app, err := moralis.Start(ctx, moralis.Config{ServerURL: serverURL, AppID: appID, Storage: storage})
//	u, err := auth.SignInEthereum(ctx, app.Client, key, nil) // then app.User.Set(u) keeps the user
//	bal, err := app.Web3API.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{}) // the user's ethAddress
//
// The chain-data client asks the current user for what the original took from Moralis.User.current(): an
// endpoint with an address parameter left empty uses the user's ethAddress, and without an API key (calls
// through the backend's cloud functions) the user's session token is sent. With Config.Secret, Start first
// fetches the account's API keys with it, as the original does with moralisSecret.
//
// The parts stay usable on their own: an App only holds them. It is immutable after Start and safe for
// concurrent use, as its parts are.
package moralis

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/signer"
)

// signIn signs in with a freshly generated Ethereum dev key: getServerTime, the signing message, personal_sign,
// then the moralisEth auth provider through the backend.
func (d *demo) signIn(ctx context.Context) (string, error) {
	key, err := signer.GenerateKey()
	if err != nil {
		return "", err
	}
	u, err := auth.SignInEthereum(ctx, d.c, key, nil)
	if err != nil {
		return "", err
	}
	d.user = u
	d.userClient = d.c.WithSessionToken(u.SessionToken())
	me, err := d.userClient.Users.Me(ctx)
	if err != nil {
		return "", err
	}
	if addr := strings.ToLower(key.Address().Hex()); me.EthAddress() != addr {
		return "", fmt.Errorf("users/me says ethAddress %q, the key's address is %q", me.EthAddress(), addr)
	}
	return fmt.Sprintf("signed in as user %s with wallet %s (a new dev key)\naccounts %v, ACL for the user alone: %v",
		u.ID(), me.EthAddress(), me.Accounts(), me.ACL() != nil && me.ACL().ReadAccess(u.ID()) && !me.ACL().PublicReadAccess()), nil
}

// linkSolana links a Solana address to the signed-in user, then unlinks it.
func (d *demo) linkSolana(ctx context.Context) (string, error) {
	if d.user == nil {
		return "", fmt.Errorf("no signed-in user (the sign-in step must run first)")
	}
	sol, err := signer.GenerateEd25519Key()
	if err != nil {
		return "", err
	}
	if err := auth.LinkSolana(ctx, d.userClient, d.user, sol, nil); err != nil {
		return "", err
	}
	me, err := d.userClient.Users.Me(ctx)
	if err != nil {
		return "", err
	}
	linked := me.SolAddress()
	if linked != sol.PublicKey() {
		return "", fmt.Errorf("solAddress is %q after linking %q", linked, sol.PublicKey())
	}
	if err := auth.UnlinkSolana(ctx, d.userClient, d.user, sol.PublicKey(), nil); err != nil {
		return "", err
	}
	me, err = d.userClient.Users.Me(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("linked Solana address %s (solAccounts %v), then unlinked it (solAccounts %v)", linked, []string{linked}, me.SolAccounts()), nil
}

var _ = client.Version

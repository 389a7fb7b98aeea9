package main

import (
	"slices"
	"testing"
)

func TestLeftoversKeepTheAppsSchema(t *testing.T) {
	all := []string{"_User", "_Session", "_Role", "_Installation", "_Idempotency", "_EthAddress", "MoralisAuthTicket",
		"MoralisAuthNonce", "MoralisAuthSession", "MoralisGoTxMark", "QScore1234", "OpsProp99", "LiveItem", "Item"}
	got := leftovers(all)
	want := []string{"Item", "LiveItem", "OpsProp99", "QScore1234"}
	if !slices.Equal(got, want) {
		t.Fatalf("leftovers(%v) = %v, want %v", all, got, want)
	}
	if len(leftovers(nil)) != 0 {
		t.Fatal("leftovers of an empty schema is not empty")
	}
}

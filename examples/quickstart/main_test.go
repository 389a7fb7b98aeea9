package main

import (
	"testing"

	"github.com/c13f5054/moralis-go/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuickstartNeedsConfiguration(t *testing.T) {
	err := (&cli.Backend{}).Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MORALIS_SERVER_URL")
}

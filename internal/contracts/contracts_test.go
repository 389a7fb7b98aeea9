package contracts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoadEveryArtifact(t *testing.T) {
	for name, fn := range map[string]string{ERC20: "transfer", ERC721: "safeTransferFrom0", ERC1155: "safeTransferFrom"} {
		a, err := Load(name)
		require.NoError(t, err, name)
		require.Equal(t, name, a.ContractName)
		require.True(t, strings.HasPrefix(a.Source, "@openzeppelin/contracts@4.9.6/"), a.Source)
		require.Contains(t, a.ABI.Methods, fn, name)
		require.True(t, strings.HasPrefix(a.Bytecode, "0x60"), "creation code starts with PUSH1")
	}
	_, err := Load("Nope")
	require.EqualError(t, err, `contracts: no artifact "Nope"`)
}

func TestDeployDataAppendsConstructorArgs(t *testing.T) {
	a, err := Load(ERC20)
	require.NoError(t, err)
	d, err := a.DeployData("Dev Token", "DEV")
	require.NoError(t, err)
	code := (len(a.Bytecode) - 2) / 2
	require.Equal(t, code+6*32, len(d), "two short strings: 2 offsets + 2×(length word, data word)")
	_, err = a.DeployData("only one")
	require.Error(t, err)
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/transfer"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of run.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// readEnv waits for DIR/chain.env and parses it.
func readEnv(t *testing.T, dir string, exited func() bool) map[string]string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, err := os.ReadFile(filepath.Join(dir, EnvFile))
		if err == nil {
			env := map[string]string{}
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), "="); ok {
					env[k] = v
				}
			}
			return env
		}
		if exited() || time.Now().After(deadline) {
			t.Fatalf("no %s: %v", EnvFile, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sendAll sends one transfer of each kind through the transfer package over
// the chain's HTTP JSON-RPC and checks each is mined.
func sendAll(t *testing.T, env map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ec, err := ethclient.DialContext(ctx, env["MORALIS_RPC_URL"])
	require.NoError(t, err)
	defer ec.Close()
	id, err := ec.ChainID(ctx)
	require.NoError(t, err)
	require.Equal(t, env["MORALIS_CHAIN_ID"], id.String())

	key, err := signer.NewKeyFromHex(env["MORALIS_DEV_KEY"])
	require.NoError(t, err)
	require.Equal(t, env["MORALIS_DEV_ADDRESS"], key.Address().Hex())
	c, err := transfer.New(ec, transfer.Config{Signer: key, ChainID: id, ReceiptPollInterval: 20 * time.Millisecond})
	require.NoError(t, err)

	to := common.HexToAddress("0x00000000000000000000000000000000000beef1")
	before, err := ec.BalanceAt(ctx, to, nil)
	require.NoError(t, err)
	for _, p := range []transfer.Params{
		{Type: transfer.Native, Receiver: to.Hex(), Amount: "1000000000000000000"},
		{Type: transfer.ERC20, ContractAddress: env["MORALIS_ERC20"], Receiver: to.Hex(), Amount: "5"},
		{Type: transfer.ERC721, ContractAddress: env["MORALIS_ERC721"], Receiver: to.Hex(), TokenID: "0"},
		{Type: transfer.ERC1155, ContractAddress: env["MORALIS_ERC1155"], Receiver: to.Hex(), TokenID: "1", Amount: "3"},
	} {
		res, err := c.Transfer(ctx, p, &transfer.TxOptions{Wait: true})
		require.NoError(t, err, "%s", p.Type)
		require.Equal(t, types.ReceiptStatusSuccessful, res.Receipt.Status, "%s", p.Type)
		require.NotZero(t, res.Receipt.BlockNumber.Sign())
	}
	after, err := ec.BalanceAt(ctx, to, nil)
	require.NoError(t, err)
	require.Equal(t, new(big.Int).Add(before, big.NewInt(1e18)).String(), after.String())
}

func TestRunServesRPCAndMinesTransfers(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-state", dir, "-automine", "20ms"}, &stdout, &stderr)
	}()
	exited := func() bool { return len(done) > 0 }

	env := readEnv(t, dir, exited)
	require.True(t, strings.HasPrefix(env["MORALIS_RPC_URL"], "http://127.0.0.1:"), env["MORALIS_RPC_URL"])
	pid, err := os.ReadFile(filepath.Join(dir, PIDFile))
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(os.Getpid()), strings.TrimSpace(string(pid)))
	for _, k := range []string{"MORALIS_ERC20", "MORALIS_ERC721", "MORALIS_ERC1155"} {
		require.True(t, common.IsHexAddress(env[k]), k)
	}

	// Browser origins may call the RPC (-cors defaults to "*"), for the React demo.
	req, err := http.NewRequest(http.MethodPost, env["MORALIS_RPC_URL"], strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://localhost:5173")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
	require.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":"0x539"}`, string(body))

	sendAll(t, env)

	cancel()
	select {
	case code := <-done:
		require.Equal(t, 0, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop")
	}
	require.NoFileExists(t, filepath.Join(dir, PIDFile))
	require.NoFileExists(t, filepath.Join(dir, EnvFile))
	require.Contains(t, stdout.String(), "wrote "+filepath.Join(dir, EnvFile))
}

func TestRunRejectsBadFlags(t *testing.T) {
	var out, errb syncBuffer
	require.Equal(t, 2, run(context.Background(), []string{"-addr", "0.0.0.0:0", "-state", t.TempDir(), "-nope"}, &out, &errb))
	require.Equal(t, 1, run(context.Background(), []string{"-addr", "0.0.0.0:0", "-state", t.TempDir()}, &out, &errb))
	require.Contains(t, errb.String(), "must be a loopback IP")
	require.Equal(t, 2, run(context.Background(), []string{"-key", "zz", "-state", t.TempDir()}, &out, &errb))
	require.Equal(t, 0, run(context.Background(), []string{"-h"}, &out, &errb))
	require.Contains(t, errb.String(), "Usage: devchain")
}

// TestBinaryStartsAndStopsOnSIGTERM builds the real program and runs it as a
// separate process, as make demo does.
func TestBinaryStartsAndStopsOnSIGTERM(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "devchain")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	dir := t.TempDir()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-state", dir, "-deploy=false")
	var stdout syncBuffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stdout
	require.NoError(t, cmd.Start())
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	env := readEnv(t, dir, func() bool { return len(waited) > 0 })
	pid, err := os.ReadFile(filepath.Join(dir, PIDFile))
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(cmd.Process.Pid), strings.TrimSpace(string(pid)))
	require.Empty(t, env["MORALIS_ERC20"], "-deploy=false deploys nothing")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ec, err := ethclient.DialContext(ctx, env["MORALIS_RPC_URL"])
	require.NoError(t, err)
	key, err := signer.NewKeyFromHex(env["MORALIS_DEV_KEY"])
	require.NoError(t, err)
	c, err := transfer.New(ec, transfer.Config{Signer: key, ReceiptPollInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	res, err := c.Transfer(ctx, transfer.Params{Receiver: "0x00000000000000000000000000000000000beef2", Amount: "7"}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.Equal(t, types.ReceiptStatusSuccessful, res.Receipt.Status)
	ec.Close()

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-waited:
		require.NoError(t, err, stdout.String())
	case <-time.After(30 * time.Second):
		t.Fatal("devchain did not stop on SIGTERM")
	}
	require.NoFileExists(t, filepath.Join(dir, PIDFile))
}

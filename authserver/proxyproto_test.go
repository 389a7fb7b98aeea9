package authserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// proxyV2 is a version 2 header: PROXY over TCP from client to dst (LOCAL when client is invalid), with tlv after
// the addresses.
func proxyV2(client, dst netip.AddrPort, tlv []byte) []byte {
	var b bytes.Buffer
	b.Write(proxyV2Sig)
	if !client.IsValid() {
		b.Write([]byte{0x20, 0x00, 0, 0})
		return b.Bytes()
	}
	fam, addrs := byte(0x11), append(client.Addr().AsSlice(), dst.Addr().AsSlice()...)
	if client.Addr().Is6() {
		fam = 0x21
	}
	addrs = binary.BigEndian.AppendUint16(addrs, client.Port())
	addrs = binary.BigEndian.AppendUint16(addrs, dst.Port())
	addrs = append(addrs, tlv...)
	b.Write([]byte{0x21, fam})
	b.Write(binary.BigEndian.AppendUint16(nil, uint16(len(addrs))))
	b.Write(addrs)
	return b.Bytes()
}

func TestReadProxyHeader(t *testing.T) {
	c4 := netip.MustParseAddrPort("203.0.113.7:51000")
	c6 := netip.MustParseAddrPort("[2001:db8::7]:51000")
	dst := netip.MustParseAddrPort("10.0.0.1:8080")
	dst6 := netip.MustParseAddrPort("[2001:db8::1]:8080")
	alpn := []byte{0x01, 0x00, 0x08, 'h', 't', 't', 'p', '/', '1', '.', '1'}
	long := append(proxyV2Sig[:12:12], 0x21, 0x11)
	long = binary.BigEndian.AppendUint16(long, proxyV2MaxLen+1)
	for _, tc := range []struct {
		name   string
		header string
		client string // "" for a header that names none
		bad    bool
	}{
		{"v2 TCP4", string(proxyV2(c4, dst, nil)), "203.0.113.7:51000", false},
		{"v2 TCP6", string(proxyV2(c6, dst6, nil)), "[2001:db8::7]:51000", false},
		{"v2 TLV after the addresses", string(proxyV2(c4, dst, alpn)), "203.0.113.7:51000", false},
		{"v2 LOCAL (a health check)", string(proxyV2(netip.AddrPort{}, dst, nil)), "", false},
		{"v2 PROXY UNSPEC", string(append(proxyV2Sig[:12:12], 0x21, 0x00, 0, 0)), "", false},
		{"v2 version 1", string(append(proxyV2Sig[:12:12], 0x11, 0x11, 0, 0)), "", true},
		{"v2 command 2", string(append(proxyV2Sig[:12:12], 0x22, 0x11, 0, 0)), "", true},
		{"v2 family 4", string(append(proxyV2Sig[:12:12], 0x21, 0x41, 0, 0)), "", true},
		{"v2 addresses cut short", string(append(proxyV2Sig[:12:12], 0x21, 0x11, 0, 4, 1, 2, 3, 4)), "", true},
		{"v2 over the length bound", string(long), "", true},
		{"v2 truncated", string(proxyV2(c4, dst, nil)[:20]), "", true},
		{"v2 signature wrong", "\r\n\r\n\x00\r\nQUIX\n\x21\x11\x00\x00", "", true},
		{"v1 TCP4", "PROXY TCP4 203.0.113.7 10.0.0.1 51000 8080\r\n", "203.0.113.7:51000", false},
		{"v1 TCP6", "PROXY TCP6 2001:db8::7 2001:db8::1 51000 8080\r\n", "[2001:db8::7]:51000", false},
		{"v1 UNKNOWN", "PROXY UNKNOWN\r\n", "", false},
		{"v1 family mismatch", "PROXY TCP4 2001:db8::7 10.0.0.1 51000 8080\r\n", "", true},
		{"v1 port out of range", "PROXY TCP4 203.0.113.7 10.0.0.1 65536 8080\r\n", "", true},
		{"v1 port with a leading zero", "PROXY TCP4 203.0.113.7 10.0.0.1 0510 8080\r\n", "", true},
		{"v1 a field missing", "PROXY TCP4 203.0.113.7 10.0.0.1 51000\r\n", "", true},
		{"v1 no CRLF within 107 bytes", "PROXY TCP4 " + strings.Repeat("1", 120), "", true},
		{"v1 cut short", "PROXY TCP4 203.0.113.7", "", true},
		{"an HTTP request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "", true},
		{"nothing", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := strings.NewReader(tc.header + "GET /")
			got, ok, err := readProxyHeader(r)
			if tc.bad {
				if err == nil {
					t.Fatalf("accepted: %v %v", got, ok)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.client != "") || (ok && got.String() != tc.client) {
				t.Fatalf("client %v (%v), want %q", got, ok, tc.client)
			}
			if rest, _ := io.ReadAll(r); string(rest) != "GET /" {
				t.Fatalf("the header reader took bytes after the header: %q left", rest)
			}
		})
	}
}

func FuzzProxyHeader(f *testing.F) {
	f.Add(proxyV2(netip.MustParseAddrPort("203.0.113.7:1"), netip.MustParseAddrPort("10.0.0.1:2"), nil))
	f.Add(proxyV2(netip.MustParseAddrPort("[2001:db8::7]:1"), netip.MustParseAddrPort("[2001:db8::1]:2"), []byte{1, 0, 0}))
	f.Add([]byte("PROXY TCP4 203.0.113.7 10.0.0.1 51000 8080\r\n"))
	f.Add([]byte("PROXY UNKNOWN\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		client, ok, err := readProxyHeader(r)
		if err != nil {
			return
		}
		if ok && (!client.Addr().IsValid() || client.Addr().Is4In6() || client.Addr().Zone() != "") {
			t.Fatalf("accepted client %v", client)
		}
		used := len(b) - r.Len()
		if bytes.HasPrefix(b, []byte("PROXY ")) {
			if !bytes.HasSuffix(b[:used], []byte("\r\n")) || bytes.Contains(b[:used-2], []byte("\r\n")) || used > proxyV1Max {
				t.Fatalf("a version 1 header of %d bytes read: %q", used, b[:used])
			}
		} else if used != 16+int(binary.BigEndian.Uint16(b[14:16])) {
			t.Fatalf("read %d bytes of a version 2 header announcing %d", used, 16+int(binary.BigEndian.Uint16(b[14:16])))
		}
	})
}

// echoClient answers each request with the RemoteAddr the server saw.
var echoClient = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.RemoteAddr) })

// askRemote makes one request on c and returns the answer's body.
func askRemote(c net.Conn, addr string) (string, error) {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%d %s", resp.StatusCode, b)
	}
	return string(b), err
}

// A balancer's connections count as the clients their headers name: the handler sees the client's address, and a
// client at its MaxConnsPerClient through the balancer is closed while another client through the same balancer
// is served. Without the header (or with ProxyProtocol off) every connection is the balancer's, and the second
// client would be refused with the first. Fails when the header is not read (tried: the first request, header
// and all, was answered 400) and when the connection keeps the balancer's address (tried: RemoteAddr was the
// balancer's).
func TestServerCountsTheClientTheBalancerNames(t *testing.T) {
	balancer := "127.31.0.1"
	srv, addr := serveHandler(t, echoClient, ServerConfig{MaxConnsPerClient: 3,
		ProxyProtocol: []netip.Prefix{netip.MustParsePrefix(balancer + "/32")}})
	dst := netip.MustParseAddrPort(addr)
	through := func(client string) net.Conn {
		c := dialFrom(t, balancer, addr)
		if _, err := c.Write(proxyV2(netip.MustParseAddrPort(client), dst, nil)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for i := range 3 {
		c := through(fmt.Sprintf("198.51.100.1:%d", 4000+i))
		if got, err := askRemote(c, addr); err != nil || got != fmt.Sprintf("198.51.100.1:%d", 4000+i) {
			t.Fatalf("connection %d of the first client: RemoteAddr %q, %v", i, got, err)
		}
	}
	if c := through("198.51.100.1:4009"); !closedByServer(c, 3*time.Second) {
		t.Fatal("the first client's fourth connection through the balancer was not closed")
	}
	c := through("198.51.100.2:5000")
	if got, err := askRemote(c, addr); err != nil || got != "198.51.100.2:5000" {
		t.Fatalf("the second client through the same balancer: RemoteAddr %q, %v", got, err)
	}
	// A health check's LOCAL header: the balancer's own address.
	c = dialFrom(t, balancer, addr)
	c.Write(proxyV2(netip.AddrPort{}, dst, nil))
	if got, err := askRemote(c, addr); err != nil || !strings.HasPrefix(got, balancer+":") {
		t.Fatalf("after a LOCAL header: RemoteAddr %q, %v", got, err)
	}
	if n, _ := srv.guard.snapshot(); n != 5 {
		t.Fatalf("the server holds %d connections, want 5", n)
	}
}

// Only the balancer names clients: from another address a PROXY header is not read (the request that starts with
// it is malformed: 400), so a client cannot pick its address; and a balancer connection without a valid header
// is closed unanswered. Fails when the trust check is skipped (tried: the direct client's header was taken and
// the handler saw 198.51.100.9).
func TestServerTakesProxyHeadersOnlyFromTheBalancer(t *testing.T) {
	balancer := "127.32.0.1"
	_, addr := serveHandler(t, echoClient, ServerConfig{ProxyProtocol: []netip.Prefix{netip.MustParsePrefix(balancer + "/32")}})
	dst := netip.MustParseAddrPort(addr)
	direct := dialFrom(t, "127.32.0.2", addr)
	direct.Write(proxyV2(netip.MustParseAddrPort("198.51.100.9:1"), dst, nil))
	direct.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(direct, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(direct), nil)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a direct client sending a PROXY header: %v %v; want 400", resp, err)
	}
	plain := dialFrom(t, "127.32.0.2", addr)
	if got, err := askRemote(plain, addr); err != nil || !strings.HasPrefix(got, "127.32.0.2:") {
		t.Fatalf("a direct client: RemoteAddr %q, %v", got, err)
	}
	noHeader := dialFrom(t, balancer, addr)
	fmt.Fprintf(noHeader, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	if !closedByServer(noHeader, 5*time.Second) {
		t.Fatal("a balancer connection without a header was not closed")
	}
}

// A balancer connection that sends nothing does not hold up the others: its header is read on its own, within
// ReadHeaderTimeout, and the connections behind it are served meanwhile. Fails when headers are read in the accept
// loop (tried: the second connection was not answered within its 10 s deadline).
func TestServerReadsProxyHeadersConcurrently(t *testing.T) {
	balancer := "127.33.0.1"
	_, addr := serveHandler(t, echoClient, ServerConfig{ReadHeaderTimeout: time.Hour,
		ProxyProtocol: []netip.Prefix{netip.MustParsePrefix(balancer + "/32")}})
	dialFrom(t, balancer, addr) // silent
	c := dialFrom(t, balancer, addr)
	c.Write(proxyV2(netip.MustParseAddrPort("198.51.100.3:3"), netip.MustParseAddrPort(addr), nil))
	if got, err := askRemote(c, addr); err != nil || got != "198.51.100.3:3" {
		t.Fatalf("behind a silent balancer connection: RemoteAddr %q, %v", got, err)
	}
}

func TestNewServerRefusesAnInvalidProxyPrefix(t *testing.T) {
	_, err := NewServer(echoClient, ServerConfig{ProxyProtocol: []netip.Prefix{{}}})
	if err == nil || err.Error() != "authserver: ServerConfig.ProxyProtocol holds an invalid prefix" {
		t.Fatalf("got %v", err)
	}
}

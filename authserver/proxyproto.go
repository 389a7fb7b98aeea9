package authserver

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// The PROXY protocol (HAProxy's send-proxy / send-proxy-v2, nginx's proxy_protocol): a balancer that opens a TCP
// connection on behalf of a client writes, before anything else, a header naming the client's address. Server reads
// it from the balancer's addresses (ServerConfig.ProxyProtocol) when it accepts the connection, before the
// connection caps count it, so the caps and every per-client limit count the client, not the balancer. The rule is
// in ServerConfig.ProxyProtocol's documentation.

// proxyV2Sig is the 12 bytes that open a version 2 header.
var proxyV2Sig = []byte("\r\n\r\n\x00\r\nQUIT\n")

const (
	// proxyV1Max is the longest version 1 line, CRLF included (the specification's bound).
	proxyV1Max = 107
	// proxyV2MaxLen bounds the bytes after a version 2 header's first 16 (addresses and TLVs). HAProxy's TLVs (ALPN,
	// unique id, TLS details) fit well within it; a longer header is refused rather than read.
	proxyV2MaxLen = 2048
	// proxyPending bounds the connections of the balancers whose header is being read at once; beyond it accepting
	// waits, as at the connection cap.
	proxyPending = 256
)

var errProxyHeader = errors.New("authserver: no valid PROXY protocol header from a trusted balancer")

// readProxyHeader reads the PROXY protocol header (version 1 or 2) at the start of r and returns the client's
// address it names; ok is false when the header is valid but names no address to use (version 2 LOCAL, such as a
// health check; UNSPEC, UNIX or datagram families; version 1 UNKNOWN): the connection's own peer is then the client.
// It reads exactly the header's bytes, nothing after it.
func readProxyHeader(r io.Reader) (client netip.AddrPort, ok bool, err error) {
	var head [16]byte
	if _, err := io.ReadFull(r, head[:6]); err != nil {
		return netip.AddrPort{}, false, errProxyHeader
	}
	switch {
	case string(head[:6]) == "PROXY ":
		return readProxyV1(r)
	case bytes.Equal(head[:6], proxyV2Sig[:6]):
		if _, err := io.ReadFull(r, head[6:]); err != nil || !bytes.Equal(head[:12], proxyV2Sig) {
			return netip.AddrPort{}, false, errProxyHeader
		}
		return readProxyV2(r, head[12], head[13], binary.BigEndian.Uint16(head[14:]))
	}
	return netip.AddrPort{}, false, errProxyHeader
}

// readProxyV2 reads the rest of a version 2 header after its first 16 bytes.
func readProxyV2(r io.Reader, verCmd, fam byte, n uint16) (netip.AddrPort, bool, error) {
	if verCmd>>4 != 2 || verCmd&0xf > 1 || n > proxyV2MaxLen {
		return netip.AddrPort{}, false, errProxyHeader
	}
	rest := make([]byte, n)
	if _, err := io.ReadFull(r, rest); err != nil {
		return netip.AddrPort{}, false, errProxyHeader
	}
	af, proto := fam>>4, fam&0xf
	if af > 3 || proto > 2 {
		return netip.AddrPort{}, false, errProxyHeader
	}
	if verCmd&0xf == 0 || proto != 1 {
		return netip.AddrPort{}, false, nil // LOCAL (a health check), or not TCP: the peer is the client
	}
	var size int
	switch af {
	case 1:
		size = 4
	case 2:
		size = 16
	default:
		return netip.AddrPort{}, false, nil // UNSPEC, UNIX
	}
	if len(rest) < 2*size+4 {
		return netip.AddrPort{}, false, errProxyHeader
	}
	ip, _ := netip.AddrFromSlice(rest[:size])
	port := binary.BigEndian.Uint16(rest[2*size:])
	return netip.AddrPortFrom(ip.Unmap(), port), true, nil
}

// readProxyV1 reads the rest of a version 1 line after "PROXY ": "TCP4|TCP6 src dst sport dport\r\n" or
// "UNKNOWN ...\r\n". It reads byte by byte so as to take nothing after the line.
func readProxyV1(r io.Reader) (netip.AddrPort, bool, error) {
	line := make([]byte, 0, proxyV1Max-6)
	var b [1]byte
	for {
		if len(line) == cap(line) {
			return netip.AddrPort{}, false, errProxyHeader
		}
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return netip.AddrPort{}, false, errProxyHeader
		}
		line = append(line, b[0])
		if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
			line = line[:n-2]
			break
		}
	}
	f := bytes.Split(line, []byte(" "))
	if string(f[0]) == "UNKNOWN" {
		return netip.AddrPort{}, false, nil
	}
	if len(f) != 5 || (string(f[0]) != "TCP4" && string(f[0]) != "TCP6") {
		return netip.AddrPort{}, false, errProxyHeader
	}
	src, err1 := netip.ParseAddr(string(f[1]))
	dst, err2 := netip.ParseAddr(string(f[2]))
	sport, err3 := strconv.ParseUint(string(f[3]), 10, 16)
	_, err4 := strconv.ParseUint(string(f[4]), 10, 16)
	want4 := string(f[0]) == "TCP4"
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || src.Is4() != want4 || dst.Is4() != want4 ||
		src.Zone() != "" || (len(f[3]) > 1 && f[3][0] == '0') {
		return netip.AddrPort{}, false, errProxyHeader
	}
	return netip.AddrPortFrom(src, uint16(sport)), true, nil
}

// proxiedConn is a connection from a balancer whose header named the client: RemoteAddr is the client's address.
type proxiedConn struct {
	net.Conn
	client net.Addr
}

func (c *proxiedConn) RemoteAddr() net.Addr { return c.client }

// proxyListener returns the connections of ln, those from a trusted balancer once their PROXY protocol header is read
// (within timeout; a connection without a valid one is closed). Headers are read concurrently, each in its own
// goroutine, so a slow balancer connection never holds up the others.
type proxyListener struct {
	net.Listener
	trusted []netip.Prefix
	timeout time.Duration

	start   sync.Once
	conns   chan net.Conn
	errs    chan error
	done    chan struct{}
	closing sync.Once
	pending chan struct{} // a slot per header being read
}

func newProxyListener(ln net.Listener, trusted []netip.Prefix, timeout time.Duration) *proxyListener {
	return &proxyListener{Listener: ln, trusted: trusted, timeout: timeout, conns: make(chan net.Conn),
		errs: make(chan error), done: make(chan struct{}), pending: make(chan struct{}, proxyPending)}
}

// fromBalancer reports whether the connection's peer is one of the trusted addresses.
func (l *proxyListener) fromBalancer(c net.Conn) bool {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, p := range l.trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Accept returns the next connection: one from an untrusted address as it is, one from a balancer once its header
// was read.
func (l *proxyListener) Accept() (net.Conn, error) {
	l.start.Do(func() { go l.acceptLoop() })
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// acceptLoop accepts connections until the listener fails for good, handing each to Accept.
func (l *proxyListener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case l.errs <- err:
			case <-l.done:
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				continue // http.Server waits and calls Accept again
			}
			return
		}
		if !l.fromBalancer(c) {
			l.hand(c)
			continue
		}
		select {
		case l.pending <- struct{}{}:
		case <-l.done:
			c.Close()
			return
		}
		go func() {
			defer func() { <-l.pending }()
			if pc := l.decode(c); pc != nil {
				l.hand(pc)
			}
		}()
	}
}

// decode reads c's header within the timeout: c with the client's address, or nil (c closed) without a valid one.
func (l *proxyListener) decode(c net.Conn) net.Conn {
	if l.timeout > 0 {
		_ = c.SetReadDeadline(time.Now().Add(l.timeout))
	}
	client, ok, err := readProxyHeader(c)
	if err == nil {
		err = c.SetReadDeadline(time.Time{})
	}
	if err != nil {
		c.Close()
		return nil
	}
	if !ok {
		return c
	}
	return &proxiedConn{Conn: c, client: net.TCPAddrFromAddrPort(client)}
}

// hand gives c to Accept, or closes it when the listener closed.
func (l *proxyListener) hand(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.done:
		c.Close()
	}
}

// Close closes the listener; connections not yet accepted are closed.
func (l *proxyListener) Close() error {
	l.closing.Do(func() { close(l.done) })
	return l.Listener.Close()
}

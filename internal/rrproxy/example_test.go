package rrproxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/c13f5054/moralis-go/internal/rrproxy"
)

// Two servers behind one proxy: requests alternate between them.
func ExampleNew() {
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "A") }))
	defer a.Close()
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "B") }))
	defer b.Close()

	p, err := rrproxy.New(a.URL, b.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	for i := 0; i < 3; i++ {
		resp, err := http.Get(p.URL + "/")
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(string(body), resp.Header.Get(rrproxy.TargetHeader))
	}
	fmt.Println(p.Counts())
	// Output:
	// A 0
	// B 1
	// A 0
	// [2 1]
}

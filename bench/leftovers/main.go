// Command leftovers drops the classes that test runs left in the local stack's schema, so that the stack serves
// an app's schema again: its system classes (a leading underscore) and the server package's (Moralis...), nothing
// else. The integration tests make classes of their own with random names (about seventy each make test) and leave
// them; parse-server builds its view of the whole schema for each request that reads it, so every class makes
// every later request of the stack dearer: with 213 classes a sign-in through the endpoint cost parse-server 8.7-8.9
// ms of CPU, with 10 6.8-7.6 ms (BENCHMARKS.md, "Sign-ins through the endpoint").
//
// make bench runs it first, and make test last (after every suite: a class is never dropped under a running test).
// Each class is emptied, then dropped, with the master key; one line per 20 classes shows the progress.
//
//	go run ./bench/leftovers [-dry-run]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
)

// kept reports whether class belongs to the app's schema: parse-server's own classes and the server package's.
func kept(class string) bool {
	return strings.HasPrefix(class, "_") || strings.HasPrefix(class, "Moralis")
}

// leftovers returns the classes of all that kept does not keep, sorted.
func leftovers(all []string) []string {
	var out []string
	for _, c := range all {
		if !kept(c) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

func main() {
	dry := flag.Bool("dry-run", false, "only list the classes that would be dropped")
	flag.Parse()
	if err := run(*dry); err != nil {
		fmt.Fprintln(os.Stderr, "leftovers:", err)
		os.Exit(1)
	}
}

func run(dry bool) error {
	env, err := devstack.Load()
	if err != nil {
		return err
	}
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		MasterKey: env.MasterKey})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	schemas, err := c.Schemas.List(ctx)
	if err != nil {
		return fmt.Errorf("reading the schema: %w", err)
	}
	names := make([]string, 0, len(schemas))
	for _, s := range schemas {
		names = append(names, s.ClassName)
	}
	drop := leftovers(names)
	fmt.Printf("leftovers: %d classes in the schema, %d left by test runs\n", len(names), len(drop))
	if dry {
		for _, class := range drop {
			fmt.Println(class)
		}
		return nil
	}
	for i, class := range drop {
		if err := c.Schemas.Purge(ctx, class); err != nil {
			return fmt.Errorf("emptying %s: %w", class, err)
		}
		if err := c.Schemas.Delete(ctx, class); err != nil {
			return fmt.Errorf("dropping %s: %w", class, err)
		}
		if (i+1)%20 == 0 && i+1 < len(drop) {
			fmt.Printf("leftovers: %d of %d dropped\n", i+1, len(drop))
		}
	}
	fmt.Printf("leftovers: %d classes dropped, %d left\n", len(drop), len(names)-len(drop))
	return nil
}

package devstack_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/c13f5054/moralis-go/internal/devstack"
)

// Load reads the env file that up.sh writes; here a hand-made one in a temporary directory,
// pointed to by MORALIS_DEVSTACK_DIR.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "devstack-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	env := "MORALIS_SERVER_URL=http://127.0.0.1:1337/parse\nMORALIS_APP_ID=testAppId\n" +
		"MORALIS_JS_KEY=testJsKey\nMORALIS_MASTER_KEY=testMasterKey\n"
	if err := os.WriteFile(filepath.Join(dir, "env"), []byte(env), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range []string{"MORALIS_SERVER_URL", "MORALIS_APP_ID", "MORALIS_JS_KEY", "MORALIS_MASTER_KEY"} {
		if v, ok := os.LookupEnv(k); ok {
			defer os.Setenv(k, v)
			os.Unsetenv(k)
		}
	}
	old, had := os.LookupEnv(devstack.DirEnvVar)
	os.Setenv(devstack.DirEnvVar, dir)
	defer func() {
		if had {
			os.Setenv(devstack.DirEnvVar, old)
		} else {
			os.Unsetenv(devstack.DirEnvVar)
		}
	}()

	e, err := devstack.Load()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.ServerURL, e.AppID)
	// Output: http://127.0.0.1:1337/parse testAppId
}

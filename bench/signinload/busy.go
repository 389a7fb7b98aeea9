package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// spinArg, as the only argument, makes this program a CPU-bound neighbour (-busy): it spins until it is killed.
const spinArg = "-spin-as-neighbour"

func spin() {
	for x := uint64(1); ; x = x*6364136223846793005 + 1 {
		_ = x
	}
}

// neighbours starts n copies of this program spinning, each killed when stop is called or when this process dies
// (Pdeathsig).
func neighbours(n int) (stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command(self, spinArg)
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("starting a busy neighbour: %w", err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

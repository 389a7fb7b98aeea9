package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/c13f5054/moralis-go/internal/devstack"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat (100 on every Linux this runs on).
const clockTicks = 100

// backendPIDs returns the process ids of the stack's parse-server instances (.devstack/server.pid and
// server2.pid, first line), found as devstack.Load finds the env file: MORALIS_DEVSTACK_DIR, else the nearest
// .devstack at or above the working directory. None found is an error.
func backendPIDs() ([]int, error) {
	dir := os.Getenv(devstack.DirEnvVar)
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, devstack.StateDirName, "server.pid")); err == nil {
				dir = filepath.Join(d, devstack.StateDirName)
				break
			}
			if filepath.Dir(d) == d {
				return nil, fmt.Errorf("no %s/server.pid at or above %s", devstack.StateDirName, wd)
			}
		}
	} else if _, err := os.Stat(filepath.Join(dir, "server.pid")); err != nil {
		dir = filepath.Join(dir, devstack.StateDirName)
	}
	var pids []int
	for _, name := range []string{"server.pid", "server2.pid"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		line, _, _ := strings.Cut(string(b), "\n")
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("no parse-server pid file in %s", dir)
	}
	return pids, nil
}

// cpuMS returns the CPU time (user + system) the processes pids have used so far, in milliseconds.
func cpuMS(pids []int) (float64, error) {
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0, err
		}
		// The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
		}
		// Fields 14 and 15 (utime, stime) are the 12th and 13th after the name.
		for _, v := range f[11:13] {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
			}
			ticks += n
		}
	}
	return float64(ticks) * 1000 / clockTicks, nil
}

// loadAverage returns the one-minute load average (/proc/loadavg), or -1 when it cannot be read.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

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

// stateDir is the stack's state directory, found as devstack.Load finds the env file: MORALIS_DEVSTACK_DIR, else the
// nearest .devstack at or above the working directory.
func stateDir() (string, error) {
	dir := os.Getenv(devstack.DirEnvVar)
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "server.pid")); err != nil {
			dir = filepath.Join(dir, devstack.StateDirName)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, devstack.StateDirName, "server.pid")); err == nil {
			return filepath.Join(d, devstack.StateDirName), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no %s/server.pid at or above %s", devstack.StateDirName, wd)
		}
	}
}

// recordedPIDs returns the process ids recorded in the stack's PID files names (first line of each), those that
// exist; none is an error.
func recordedPIDs(names ...string) ([]int, error) {
	dir, err := stateDir()
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, name := range names {
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
		return nil, fmt.Errorf("none of %v in %s", names, dir)
	}
	return pids, nil
}

// group is a group of the stack's processes whose CPU time is measured together.
type group struct {
	name     string
	pids     []int
	children bool // also count the processes' children, living and ended (PostgreSQL's backends)
	err      error
}

// stackGroups returns the stack's process groups for target: parse-server, postgres, the endpoints (this process,
// the load generator included, for "inproc"; else the stack's two, and this process apart as "load generator"),
// haproxy and redis (LiveQuery's pub/sub, and the stack endpoints' guards).
func stackGroups(target string) []*group {
	newGroup := func(name string, children bool, files ...string) *group {
		pids, err := recordedPIDs(files...)
		return &group{name: name, pids: pids, children: children, err: err}
	}
	self := &group{name: "endpoints", pids: []int{os.Getpid()}}
	groups := []*group{newGroup("parse-server", false, "server.pid", "server2.pid"), newGroup("postgres", true, "pg.pid")}
	if target == "inproc" {
		groups = append(groups, self)
	} else {
		self.name = "load generator"
		groups = append(groups, newGroup("endpoints", false, "endpoint1.pid", "endpoint2.pid"), self)
	}
	return append(groups, newGroup("haproxy", false, "haproxy.pid"), newGroup("redis", false, "redis.pid"))
}

// cpu returns the CPU time the group has used so far, in milliseconds (0 when it cannot be read; g.err says why).
func (g *group) cpu() float64 {
	if g.err != nil {
		return 0
	}
	pids := g.pids
	if g.children {
		pids = append(append([]int(nil), pids...), childrenOf(pids)...)
	}
	ms, err := cpuMS(pids, g.children)
	if err != nil {
		g.err = err
	}
	return ms
}

// childrenOf returns the processes whose parent is one of pids.
func childrenOf(pids []int) []int {
	parent := map[int]bool{}
	for _, p := range pids {
		parent[p] = true
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := statFields(pid)
		if err != nil || len(f) < 2 {
			continue
		}
		if pp, _ := strconv.Atoi(f[1]); parent[pp] {
			out = append(out, pid)
		}
	}
	return out
}

// statFields returns the fields of /proc/<pid>/stat after the command name (the state is the first).
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	// The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// cpuMS returns the CPU time (user + system) the processes pids have used so far, in milliseconds; with ended, also
// that of their children that ended (cutime, cstime). A process that ended meanwhile counts for nothing (one of the
// children), or is an error (one of the recorded processes, which the first pids are).
func cpuMS(pids []int, ended bool) (float64, error) {
	var ticks int64
	for k, pid := range pids {
		f, err := statFields(pid)
		if err != nil {
			if k > 0 && ended {
				continue
			}
			return 0, err
		}
		if len(f) < 15 {
			return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
		}
		// Fields 14 and 15 (utime, stime) are the 12th and 13th after the name; 16 and 17 (cutime, cstime) the next.
		last := 13
		if ended {
			last = 15
		}
		for _, v := range f[11:last] {
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

package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// barrierPrefix begins the name of every watcher's barrier folder in the
// temp directory.
const barrierPrefix = "atelier-watch-"

// barrierOwner names the process a barrier folder belongs to: its pid
// namespace, its pid and its start time (clock ticks after boot, from
// /proc/PID/stat). The start time tells a process from a later one that
// was given the same pid; the namespace keeps a process from judging
// folders of processes it cannot see (a container sharing the temp
// directory).
type barrierOwner struct {
	ns    uint64
	pid   int
	start uint64
}

// pattern is the os.MkdirTemp pattern of the owner's folders:
// atelier-watch-NS-PID-START-RANDOM.
func (o barrierOwner) pattern() string {
	return fmt.Sprintf("%s%d-%d-%d-*", barrierPrefix, o.ns, o.pid, o.start)
}

// parseBarrierName reads the owner from a barrier folder's name; false for
// another name, or a folder of a version that did not name its owner.
func parseBarrierName(name string) (barrierOwner, bool) {
	rest, ok := strings.CutPrefix(name, barrierPrefix)
	if !ok {
		return barrierOwner{}, false
	}
	f := strings.SplitN(rest, "-", 4)
	if len(f) != 4 {
		return barrierOwner{}, false
	}
	ns, err1 := strconv.ParseUint(f[0], 10, 64)
	pid, err2 := strconv.Atoi(f[1])
	start, err3 := strconv.ParseUint(f[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || pid <= 0 {
		return barrierOwner{}, false
	}
	return barrierOwner{ns: ns, pid: pid, start: start}, true
}

// currentOwner describes this process, from /proc.
func currentOwner() (barrierOwner, error) {
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return barrierOwner{}, err
	}
	// The link reads "pid:[4026531836]".
	inner, ok := strings.CutPrefix(link, "pid:[")
	if !ok {
		return barrierOwner{}, fmt.Errorf("pid namespace %q: unknown form", link)
	}
	ns, err := strconv.ParseUint(strings.TrimSuffix(inner, "]"), 10, 64)
	if err != nil {
		return barrierOwner{}, fmt.Errorf("pid namespace %q: %w", link, err)
	}
	pid := os.Getpid()
	start, err := processStart(pid)
	if err != nil {
		return barrierOwner{}, err
	}
	return barrierOwner{ns: ns, pid: pid, start: start}, nil
}

// errNoProcess says a pid names no running process.
var errNoProcess = errors.New("no such process")

// processStart returns when process pid started, in clock ticks after
// boot (field 22 of /proc/PID/stat), or errNoProcess.
func processStart(pid int) (uint64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return 0, errNoProcess
	}
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces
	// and parentheses itself: the fields after it start after the last
	// ')', with field 3.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 22-2 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	start, err := strconv.ParseUint(f[22-3], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: start time: %w", pid, err)
	}
	return start, nil
}

// ended reports whether the owner of a barrier folder is no longer
// running: its pid names no process, or a process started at another
// time. false when that cannot be told.
func (o barrierOwner) ended() bool {
	start, err := processStart(o.pid)
	if errors.Is(err, errNoProcess) {
		return true
	}
	return err == nil && start != o.start
}

// removeEndedBarriers removes from the temp directory tmp the barrier
// folders that processes of namespace me.ns left behind when they ended
// without closing their watcher (a kill, a crash). It keeps the folders of
// running processes, this one's, those of other users (which it could not
// remove) and those whose owner it cannot tell.
func removeEndedBarriers(tmp string, me barrierOwner) error {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return fmt.Errorf("list %s: %w", tmp, err)
	}
	uid := os.Getuid()
	var errs []error
	for _, en := range ents {
		o, ok := parseBarrierName(en.Name())
		if !ok || !en.IsDir() || o.ns != me.ns || o == me {
			continue
		}
		p := filepath.Join(tmp, en.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			continue // gone meanwhile: another process removed it
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid || !fi.IsDir() {
			continue
		}
		if !o.ended() {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// makeBarrierFolder creates the watcher's barrier folder in the temp
// directory, named for this process, after removing the folders of
// processes that ended without removing theirs. Where /proc cannot tell
// who this process is, the folder is named for nobody and nothing is
// removed. What it could not remove it says in a notice.
func (w *Watcher) makeBarrierFolder() (string, error) {
	tmp := os.TempDir()
	me, err := currentOwner()
	if err != nil {
		return os.MkdirTemp(tmp, barrierPrefix)
	}
	if err := removeEndedBarriers(tmp, me); err != nil {
		w.notice("cannot remove the watch folders that ended processes left in %s: %v", tmp, err)
	}
	return os.MkdirTemp(tmp, me.pattern())
}

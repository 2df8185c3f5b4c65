package core

import (
	"os"
	"os/user"
	"strconv"
	"sync"
)

// UserOf names the user of uid as the audit log shows it: "uid 1000
// (alice)", or "uid 1000" when the system does not know the name.
func UserOf(uid int) string {
	s := "uid " + strconv.Itoa(uid)
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		s += " (" + u.Username + ")"
	}
	return s
}

// ProcessUser is UserOf this process's user, looked up once.
var ProcessUser = sync.OnceValue(func() string { return UserOf(os.Getuid()) })

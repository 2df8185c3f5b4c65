package keys

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
)

// Action is one binding of a keymap under the name the configuration's
// [keys] table gives it ("quit", "files.delete", "session.history").
type Action struct {
	Name    string
	Binding *key.Binding
}

var bindingType = reflect.TypeOf(key.Binding{})

// Actions lists the key.Binding fields of the keymap struct km points to,
// in their order, each named prefix + "." + the field's name in snake
// case ("QueueUp" in "session" is "session.queue_up"); with an empty
// prefix the field's name alone. A field tagged `keys:"name"` is named
// name, whatever the prefix. The bindings are the struct's own, so
// changing one changes the keymap.
func Actions(prefix string, km any) []Action {
	v := reflect.ValueOf(km)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("keys.Actions: %T is not a pointer to a keymap struct", km))
	}
	v = v.Elem()
	var out []Action
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || f.Type != bindingType {
			continue
		}
		name := snake(f.Name)
		if prefix != "" {
			name = prefix + "." + name
		}
		if tag := f.Tag.Get("keys"); tag != "" {
			name = tag
		}
		out = append(out, Action{Name: name, Binding: v.Field(i).Addr().Interface().(*key.Binding)})
	}
	return out
}

// Named returns s with Names filled from the keymap km points to: each
// binding of s is named by the field that holds it (see Actions).
func (s Scope) Named(prefix string, km any) Scope {
	acts := Actions(prefix, km)
	s.Names = make([]string, len(s.Bindings))
	for i, b := range s.Bindings {
		for _, a := range acts {
			if sameBinding(b, *a.Binding) {
				s.Names[i] = a.Name
				break
			}
		}
	}
	return s
}

func sameBinding(a, b key.Binding) bool {
	return a.Help() == b.Help() && strings.Join(a.Keys(), "\x00") == strings.Join(b.Keys(), "\x00")
}

// Rebind makes a binding answer to ks instead of its keys, keeping what
// it does.
func Rebind(b *key.Binding, ks ...string) {
	desc := b.Help().Desc
	b.SetKeys(ks...)
	b.SetHelp(Label(ks), desc)
}

// snake turns a Go field name into the configuration's spelling:
// "QueueUp" is "queue_up", "PageDown" is "page_down".
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

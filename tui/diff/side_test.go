package diff

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/internal/golden"
	"github.com/atelier-studio/atelier/themes"
)

func TestWords(t *testing.T) {
	o, n := Words("return fmt.Errorf(\"bad: %w\", err)", "return fmt.Errorf(\"worse: %w\", err)")
	changed := func(ps []Part) (out []string) {
		for _, p := range ps {
			if p.Changed {
				out = append(out, p.Text)
			}
		}
		return out
	}
	if c := changed(o); len(c) != 1 || c[0] != "bad" {
		t.Errorf("old changed %q", c)
	}
	if c := changed(n); len(c) != 1 || c[0] != "worse" {
		t.Errorf("new changed %q", c)
	}
}

const goDiff = `--- a/main.go
+++ b/main.go
@@ -1,7 +1,10 @@
 package main
 
-import "fmt"
+import (
+	"fmt"
+	"os"
+)
 
 func main() {
-	fmt.Println("hello")
+	fmt.Fprintln(os.Stderr, "hello, world")
 }
`

func TestGoldenSideBySide(t *testing.T) {
	v := New(themes.Build(themes.Dark(), true), "main.go", goDiff)
	v.SetSize(150, 14)
	if !v.SideBySide() {
		t.Fatal("150 columns should draw side by side")
	}
	lines := v.View()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 150 {
			t.Fatalf("line %d is %d wide", i, w)
		}
	}
	golden.Check(t, "side-by-side-150x14.txt", ansi.Strip(strings.Join(lines, "\n")))

	v.SetSize(100, 14)
	if v.SideBySide() {
		t.Fatal("100 columns should draw unified")
	}
	golden.Check(t, "unified-100x14.txt", ansi.Strip(strings.Join(v.View(), "\n")))
	v.SetSideBySide(true)
	v.SetSize(90, 14)
	if !v.SideBySide() {
		t.Fatal("a chosen layout stays when the size changes")
	}
	golden.Check(t, "side-by-side-90x14.txt", ansi.Strip(strings.Join(v.View(), "\n")))
}

func TestChangedWordsStandOut(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	v := New(st, "main.go", goDiff)
	for _, w := range []int{150, 100} {
		v.SetSize(w, 20)
		view := strings.Join(v.View(), "\n")
		for _, word := range []string{"Fprintln", "os.Stderr, ", ", world"} {
			if !strings.Contains(view, st.DiffAddWord.Render(word)) {
				t.Errorf("width %d: %q is not drawn as a changed word", w, word)
			}
		}
		if !strings.Contains(view, st.DiffDelWord.Render("Println")) {
			t.Errorf("width %d: the removed word is not marked", w)
		}
	}
}

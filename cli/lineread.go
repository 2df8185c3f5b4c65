package cli

import "bufio"

// pendingLine is the read of the terminal in flight, one at a time: a
// prompt that gives up (an interrupt, an item answered elsewhere) leaves
// the read going, and the line it gets is the next prompt's answer.
type pendingLine struct {
	ch chan lineRead
}

// lineRead is one line of the terminal, or the error that ended the input.
type lineRead struct {
	text string
	err  error
}

// next returns the next line of in, or false when stop closes first.
func (p *pendingLine) next(in *bufio.Reader, stop <-chan struct{}) (lineRead, bool) {
	if p.ch == nil {
		ch := make(chan lineRead, 1)
		p.ch = ch
		go func() {
			text, err := in.ReadString('\n')
			ch <- lineRead{text, err}
		}()
	}
	select {
	case l := <-p.ch:
		p.ch = nil
		return l, true
	case <-stop:
		return lineRead{}, false
	}
}

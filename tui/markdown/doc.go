// Package markdown draws an agent's answer, Markdown source that grows as
// it streams, as styled terminal lines at a width: headings, emphasis,
// lists, quotes, links (their address shown after the text, since a
// terminal cannot hover), tables, rules, and code blocks coloured by
// tui/syntax. goldmark parses; the drawing is the package's own, with the
// roles of themes.Styles, so the colourless theme stays readable through
// attributes alone.
//
// Rendering a whole document per streamed delta would cost what the answer
// has said so far, so a Doc splits its source into top-level blocks at
// blank lines outside code fences (a line indented after a blank line goes
// on the block before it: a list item's second paragraph, say). A block
// followed by another is closed: its source can no longer change, so it is
// parsed and drawn once per width and Renderer, and kept. Only the open
// tail, the last block, is drawn again as text arrives; an unclosed fence
// there draws as the code block it is so far.
//
// What a closed block cannot see is a link reference defined in a later
// block: "[text][ref]" resolves only within its own block.
//
// Soft line breaks are kept as breaks, as chat and review comments do:
// agents break lines where they mean it, and rarely hard-wrap prose.
//
// Source text is made safe for the terminal (internal/termsafe) before it
// is parsed. Nothing here does I/O; a Doc is not safe for concurrent use.
package markdown

// Package syntax colours source code for the studio: it runs one of
// chroma's lexers over lines and maps each token to one of the few roles
// the themes draw (keyword, string, comment, number, function, type,
// operator, plain). The editor and the transcript's Markdown code blocks
// share it, so a snippet in an agent's answer is coloured exactly as the
// same code in an editor tab.
//
// Lexing is pure CPU work with no I/O; callers decide where it runs (the
// editor in a command, the Markdown renderer once per closed block).
package syntax

// Package frame draws the studio's rectangles: a titled border around a
// pane's content, and the fitting of content lines into an exact width and
// height (truncated with an ellipsis, padded with spaces), so every pane
// renders a block of known size and the layout can join blocks blindly.
package frame

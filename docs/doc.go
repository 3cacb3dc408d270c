// Package docs holds the reference pages that README.md links to. It has no
// code; its test keeps the numbers of README.md and docs/*.md true to the
// files they come from.
//
// A number in a page is either inside a generated block (between
// "<!-- NAME begin: written by ... -->" and "<!-- NAME end -->"), in code
// (a fenced block or `inline`), or quoted from its source by a marker that
// follows it in the same paragraph or list item:
//
//	<!-- source: PATH "QUOTE" -->
//
// PATH is relative to the repository root and QUOTE a passage of that file
// (whitespace collapsed). The test fails when a quote is not in its file
// (the source changed) or when a number of the text the marker covers
// (from the previous marker or the start of the paragraph) is not one of
// the numbers of its quotes (the page is wrong). Figures that look
// measured (a decimal point, a percentage or a unit of time or memory)
// outside markers, code and generated blocks fail the test too, so a
// new figure cannot be typed in without naming its source.
package docs

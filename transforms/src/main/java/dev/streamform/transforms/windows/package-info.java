/**
 * Windowed aggregates with allowed lateness and accumulating revisions with identity: revision 1 at
 * the window's end, one revision per correction, the final record (docs/semantics.md §6).
 */
package dev.streamform.transforms.windows;

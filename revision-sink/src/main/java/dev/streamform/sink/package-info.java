/**
 * A windowed model's revisions in PostgreSQL: {@link dev.streamform.sink.RevisionSink} applies each
 * revision by compare-and-set, keeps the append-only correction ledger and the canonical alias, and
 * verifies projections against the ledger (docs/semantics.md §8).
 */
package dev.streamform.sink;

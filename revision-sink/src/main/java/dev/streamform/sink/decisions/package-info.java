/**
 * The decision ledger of scoring models in PostgreSQL (docs/semantics.md §11): {@link
 * DecisionLedgerSink} writes it from a pipeline, {@link DecisionLedger} reads and verifies it.
 */
package dev.streamform.sink.decisions;

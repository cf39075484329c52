/**
 * One-time effects: rules over revisions, the effect ledger ({@code PREPARED -> DISPATCHING -> DONE
 * | UNKNOWN}), the dispatcher and providers; each effect key at most one provider-side effect
 * (docs/semantics.md §10).
 */
package dev.streamform.sink.effects;

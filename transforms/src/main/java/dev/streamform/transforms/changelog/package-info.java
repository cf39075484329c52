/**
 * The keyed changelog: events applied per key in log order, aggregates, retention in event time
 * (docs/semantics.md §3).
 */
package dev.streamform.transforms.changelog;

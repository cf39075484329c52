/**
 * Duplicate detection by a declared {@code event_id}: repeats within a horizon in event time are
 * dropped and written out, a repeat with another payload quarantined.
 */
package dev.streamform.transforms.dedup;

/**
 * Durations as the declarations write them ({@code 500ms}, {@code 5m}, {@code 30d}): parsing and
 * the canonical text used in display data and digests; the reading of a leap second ({@link
 * dev.streamform.core.time.LeapSeconds}); and the range of event times ({@link
 * dev.streamform.core.time.EventTimeRange}). JDK only.
 */
package dev.streamform.core.time;

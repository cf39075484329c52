/**
 * Durations as the declarations write them ({@code 500ms}, {@code 5m}, {@code 30d}): parsing and
 * the canonical text used in display data and digests; and the reading of a leap second ({@link
 * dev.streamform.core.time.LeapSeconds}). JDK only.
 */
package dev.streamform.core.time;

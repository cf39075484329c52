/**
 * Durations as the declarations write them ({@code 500ms}, {@code 5m}, {@code 30d}): parsing and
 * the canonical text used in display data and digests. JDK only.
 */
package dev.streamform.core.time;

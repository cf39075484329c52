package dev.streamform.core.time;

import java.util.Locale;

/**
 * The status of a windowed model's output record for one key and window (docs/semantics.md §6), as
 * fixtures and sinks spell it: the one vocabulary of the engine, the sinks, fixtures and the
 * oracle.
 */
public enum WindowStatus {
  /** A preview before the watermark passes the window's end; revision 0, not a revision. */
  EARLY,
  /** Revision 1 when the watermark passes the window's end: the aggregate of the on-time events. */
  ON_TIME,
  /** A revision caused by a correction (an event accepted within allowed lateness). */
  CORRECTED,
  /** The window is closed: the last revision's number and values again; its state is freed. */
  FINAL;

  /**
   * The spelling in fixtures and records: {@code early}, {@code on_time}, {@code corrected}, {@code
   * final}.
   */
  public String yamlName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

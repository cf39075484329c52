package dev.streamform.core.time;

import java.util.Locale;

/**
 * What a source's clock does with an event that arrives behind its partition's watermark: the one
 * vocabulary of {@code late_events:} in {@code sources.yml} and of the engine's clock.
 */
public enum LateEvents {
  /** Route it to the late output with the watermark it lost to, count it, do not process it. */
  DROP,
  /** Process it like any other event (it is still counted as late-kept). */
  KEEP;

  /** The spelling in {@code sources.yml}. */
  public String yamlName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package dev.streamform.policies.declarations;

import java.util.Locale;

/** What a source does with an event that arrives behind its watermark. */
public enum LateEvents {
  /** Send it to the late output, count it, and do not process it (the default). */
  DROP,
  /** Process it like any other event. */
  KEEP;

  /** The spelling in {@code sources.yml}. */
  public String yamlName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

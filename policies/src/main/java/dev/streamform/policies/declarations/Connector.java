package dev.streamform.policies.declarations;

import java.util.Locale;

/** Where a source's records come from. */
public enum Connector {
  /** A Kafka topic ({@code topic:}). */
  KAFKA,
  /** A file of JSON lines ({@code path:}, relative to the project folder); the embedded default. */
  FILE;

  /** The spelling in {@code sources.yml}. */
  public String yamlName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

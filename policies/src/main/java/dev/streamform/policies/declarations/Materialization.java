package dev.streamform.policies.declarations;

import java.util.Locale;

/** How a model's results are written. */
public enum Materialization {
  /**
   * A changelog keyed by the model's key: {@code insert} on a key's first row, then {@code update}.
   */
  UPSERT;

  /** The spelling in {@code streamform.yml}. */
  public String yamlName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

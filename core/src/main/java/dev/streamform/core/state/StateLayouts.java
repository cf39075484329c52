package dev.streamform.core.state;

import java.util.Map;

/**
 * The version of each keyed stage's state layout: what its state cells are, their kinds and coders.
 * A savepoint restores into a build only when the layouts of the stages it holds are the same;
 * {@code plan} shows these versions in a model's state fingerprint, so a layout change reads as a
 * state migration (docs/decisions/0010). Raise a stage's number whenever its layout moves —
 * transforms' {@code StateLayoutTest} fails until the new layout is recorded under a new number.
 * Versions are counted from the build that introduced them (December 2026): a plan shows a stage
 * from its version 2 on, so plans written before read the same.
 */
public final class StateLayouts {
  /** {@code SourceClock}: per-partition watermarks, idleness, buffered items. */
  public static final int CLOCK = 1;

  /** {@code Deduplicate}: ids seen within their horizon. */
  public static final int DEDUP = 1;

  /** {@code KeyedChangelog}: a key's aggregate, latest time, tick and waiting events. */
  public static final int CHANGELOG = 1;

  /** {@code WindowedAggregate}: a key's windows, tick and waiting events. */
  public static final int WINDOWS = 1;

  /**
   * {@code ScoreEvents}: a key's applied and decided events, revision, tick and hold; from 2 also
   * its freed horizons (ADR 0050).
   */
  public static final int DECISIONS = 2;

  private StateLayouts() {}

  /** Every stage's version by its name in a plan's state fingerprint. */
  public static Map<String, Integer> all() {
    return Map.of(
        "clock", CLOCK,
        "dedup", DEDUP,
        "changelog", CHANGELOG,
        "windows", WINDOWS,
        "decisions", DECISIONS);
  }
}

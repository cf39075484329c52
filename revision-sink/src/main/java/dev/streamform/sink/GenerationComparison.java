package dev.streamform.sink;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Two generations of a windowed model compared window by window ({@link Ledger#compare}): for every
 * window (key and window bounds) that either generation has a projection of, the current projection
 * of each side. Windows are matched by key and bounds rather than by their logical id, which also
 * hashes a calendar window's zone: a generation that moved its days to another zone with the same
 * midnights has the same windows under other ids. Two windows are {@link Kind#EQUAL} when their
 * current values are the same (same aggregate digest), whatever their revision numbers and status:
 * a longer watermark can reach the same values in fewer revisions. Held revisions (not yet applied)
 * are not compared.
 *
 * @param model the model
 * @param from generation A
 * @param to generation B
 * @param windows every window of A or B, ordered by window start, then key
 * @param canary the model's canary share when one is in force: its keys read another generation
 *     than the others, so they are reported apart ({@link #canaryKeys}, {@link #otherKeys})
 */
public record GenerationComparison(
    String model, int from, int to, List<Window> windows, Optional<CanaryShare> canary) {

  /** How a window of A compares with the same window of B. */
  public enum Kind {
    EQUAL("equal"),
    DIFFERENT("different"),
    ONLY_IN_FROM("only in A"),
    ONLY_IN_TO("only in B");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /**
     * How a person reads it: {@code equal}, {@code different}, {@code only in A}, {@code only in
     * B}.
     */
    public String label() {
      return label;
    }
  }

  /**
   * A projection's current state: revision, status ({@code on_time}, {@code corrected}, {@code
   * final}), values.
   */
  public record Side(int revision, String status, Map<String, Object> values, String digest) {}

  /**
   * One window, with each generation's projection of it (empty where it has none); its logical id
   * is generation A's where A has the window, else B's; {@code canaryKey} when a canary is in force
   * and the window's key is in its share.
   */
  public record Window(
      String logicalWindowId,
      Map<String, Object> key,
      Instant windowStart,
      Instant windowEnd,
      Optional<Side> from,
      Optional<Side> to,
      boolean canaryKey) {

    public Kind kind() {
      if (from.isEmpty()) {
        return Kind.ONLY_IN_TO;
      }
      if (to.isEmpty()) {
        return Kind.ONLY_IN_FROM;
      }
      return from.get().digest().equals(to.get().digest()) ? Kind.EQUAL : Kind.DIFFERENT;
    }
  }

  /** The windows of the canary's keys (none without a canary). */
  public GenerationComparison canaryKeys() {
    return new GenerationComparison(
        model, from, to, windows.stream().filter(Window::canaryKey).toList(), canary);
  }

  /** The windows of the keys outside the canary's share (all without a canary). */
  public GenerationComparison otherKeys() {
    return new GenerationComparison(
        model, from, to, windows.stream().filter(w -> !w.canaryKey()).toList(), canary);
  }

  /** How many windows are of {@code kind}. */
  public long count(Kind kind) {
    return windows.stream().filter(w -> w.kind() == kind).count();
  }

  /** True when every window is in both generations with the same values. */
  public boolean allEqual() {
    return count(Kind.EQUAL) == windows.size();
  }

  /** {@code 6 windows: 5 equal, 1 different, 0 only in generation 1, 0 only in generation 2}. */
  public String summary() {
    return windows.size()
        + (windows.size() == 1 ? " window: " : " windows: ")
        + count(Kind.EQUAL)
        + " equal, "
        + count(Kind.DIFFERENT)
        + " different, "
        + count(Kind.ONLY_IN_FROM)
        + " only in generation "
        + from
        + ", "
        + count(Kind.ONLY_IN_TO)
        + " only in generation "
        + to;
  }
}

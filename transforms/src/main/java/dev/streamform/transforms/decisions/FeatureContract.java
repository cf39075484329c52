package dev.streamform.transforms.decisions;

/** Which feature state a decision reads (docs/semantics.md §11; README "Decisions"). */
public enum FeatureContract {
  /**
   * Features from the key's events with time {@code <=} the scored event's time {@code t} that
   * arrived while their partition's watermark was still below {@code t}; scored once the source
   * watermark reaches {@code t}. A function of the per-partition logs: identical in every arrival
   * order, on every runner.
   */
  AS_OF_OCCURRENCE,
  /**
   * Features from everything the key's stage has applied when the event reaches it, whatever its
   * time (events that occurred after the scored one included); scored at once. Lower latency, and
   * not replay-stable: the features, score, state revision and decision id may differ between
   * arrival orders (never the set of events decided, nor their routes).
   */
  LATEST_AVAILABLE;

  public String declared() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}

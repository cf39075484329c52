package dev.streamform.teststreams.oracle;

import dev.streamform.core.time.WindowStatus;
import dev.streamform.policies.project.Fixture;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What docs/semantics.md §6 says a windowed model's input must produce, as the {@link
 * WindowedOracle} computes it: the output rows (previews, revisions and final records), the
 * too-late rows, the quarantined events and the counts {@code streamform test} prints.
 *
 * <p>{@link #rows()} are in the order the oracle emits them: an event's previews and immediate
 * corrections at its arrival, then the rows of the window edges the following watermark passes, by
 * edge time, then key, then window start. Only the order within one key and window is part of the
 * contract. {@link #late()} is in delivery order, one event's rows by window start.
 *
 * @param rows every output row
 * @param late one row per window that refused an event as too late
 * @param quarantined the events without an event time and ({@code event_id}) the conflicts, in
 *     delivery order
 * @param eventsProcessed events accepted into at least one window (on time or correction); an event
 *     the model's WHERE clause filters out is in no window and is not counted
 * @param duplicates the events dropped as duplicates ({@code event_id}), in delivery order
 */
public record WindowedOutcome(
    List<Row> rows,
    List<Late> late,
    List<Quarantined> quarantined,
    int eventsProcessed,
    List<Duplicate> duplicates) {

  public WindowedOutcome {
    rows = List.copyOf(rows);
    late = List.copyOf(late);
    quarantined = List.copyOf(quarantined);
    duplicates = List.copyOf(duplicates);
  }

  /** An outcome without duplicates (a source without {@code event_id}). */
  public WindowedOutcome(
      List<Row> rows, List<Late> late, List<Quarantined> quarantined, int eventsProcessed) {
    this(rows, late, quarantined, eventsProcessed, List.of());
  }

  /** An event dropped as a duplicate ({@code event_id}), before the windows judged it. */
  public record Duplicate(Fixture.Given item, String eventId) {}

  /**
   * The events of one partition that a row includes: the smallest and largest offset and how many.
   */
  public record Offsets(long min, long max, long count) {}

  /**
   * One output row of a key's window. A final row repeats its last revision's number, predecessor,
   * values, digest and offsets.
   *
   * @param status see {@link WindowStatus}
   * @param revision 1, 2, ... for revisions and final rows; 0 for previews
   * @param predecessor the revision this one replaces; empty for revision 1 and for previews
   * @param windowStart inclusive
   * @param windowEnd exclusive
   * @param key the key columns, named and valued as the query outputs them, in select order
   * @param values the aggregate columns, in select order (null where SQL gives null)
   * @param logicalWindowId {@code RevisionIdentity.logicalWindowId(model, key, windowStart,
   *     windowEnd)}
   * @param projectionId {@code RevisionIdentity.projectionId(logicalWindowId, generation)}
   * @param aggregateDigest {@code RevisionIdentity.aggregateDigest(values)}
   * @param offsets per partition (ascending), the events the values aggregate
   */
  public record Row(
      WindowStatus status,
      int revision,
      Optional<Integer> predecessor,
      Instant windowStart,
      Instant windowEnd,
      Map<String, Object> key,
      Map<String, Object> values,
      String logicalWindowId,
      String projectionId,
      String aggregateDigest,
      SortedMap<Integer, Offsets> offsets) {

    public Row {
      key = Collections.unmodifiableMap(new LinkedHashMap<>(key)); // values may be null
      values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
      offsets = Collections.unmodifiableSortedMap(new TreeMap<>(offsets));
    }

    /** This row as the window's final record. */
    Row asFinal() {
      return new Row(
          WindowStatus.FINAL,
          revision,
          predecessor,
          windowStart,
          windowEnd,
          key,
          values,
          logicalWindowId,
          projectionId,
          aggregateDigest,
          offsets);
    }
  }

  /**
   * An event refused by one window as too late: its partition's watermark had reached the window's
   * end + allowed lateness.
   *
   * @param item the event's {@code given:} item
   * @param eventId {@code <partition>-<offset>}
   * @param windowStart the start of the window that refused it
   * @param watermark the event's partition's {@code W_p} at its arrival, which it lost to
   */
  public record Late(Fixture.Given item, String eventId, Instant windowStart, Instant watermark) {}

  /** An event that was not processed: it has no event time. */
  public record Quarantined(Fixture.Given item, String eventId, String reason) {}

  /** {@code on_time} and {@code corrected} rows. */
  public int revisionsEmitted() {
    return count(WindowStatus.ON_TIME) + count(WindowStatus.CORRECTED);
  }

  /** {@code final} rows: one per key and window. */
  public int windowsFinalized() {
    return count(WindowStatus.FINAL);
  }

  /** Too-late rows: one per refused window. */
  public int lateEventsDropped() {
    return late.size();
  }

  public int eventsQuarantined() {
    return quarantined.size();
  }

  private int count(WindowStatus status) {
    return (int) rows.stream().filter(r -> r.status() == status).count();
  }
}

package dev.streamform.teststreams.oracle;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.EarlyResults;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.OutcomeBuilder;
import dev.streamform.teststreams.oracle.WindowedOutcome.Late;
import dev.streamform.teststreams.oracle.WindowedOutcome.Offsets;
import dev.streamform.teststreams.oracle.WindowedOutcome.Quarantined;
import dev.streamform.teststreams.oracle.WindowedOutcome.Row;
import dev.streamform.transforms.windows.WindowRange;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The reference implementation of docs/semantics.md §6 (windowed models) in plain Java: one loop
 * over the delivered items, a map of partition watermarks and a map of open windows per key. Like
 * {@link Oracle} it shares no code with the Beam transforms; it exists to be obviously right.
 *
 * <p>For each item in delivery order: a watermark item raises {@code W_p} of the partitions it
 * applies to; an event is judged, for each window {@code [s, end)} that contains its time {@code
 * t}, against its partition's {@code W_p} before it advances it — on time iff {@code W_p} is
 * undefined or {@code W_p < end}, a correction iff {@code end <= W_p < end + allowed_lateness}, too
 * late otherwise — and then sets {@code W_p := max(W_p, t - delay)}. After every item the source
 * watermark {@code W = min_p W_p} (undefined while any {@code W_p} is) fires the edges it has
 * passed: at {@code end}, revision 1 and the held corrections; at {@code end + allowed_lateness},
 * the final record. The end of the input takes {@code W} to infinity.
 *
 * <p>Decisions it encodes, beyond the text of §6:
 *
 * <ul>
 *   <li>A fixture's partitions are those its items name, plus 0 when an event names none (§6,
 *       pinned details); a watermark item without partition applies to each of them and creates
 *       none. {@code W} is the minimum over them. Events are numbered as {@code FixtureStream}
 *       numbers them ({@code <partition>-<offset>}, a watermark item taking an offset in every
 *       partition it applies to).
 *   <li>The model's WHERE comes before the windows, as SQL filters rows before it groups them: an
 *       event that the WHERE clause filters out is judged by the clock (it advances {@code W_p})
 *       but is in no window, so it makes no window, preview, revision or too-late row and is not
 *       counted as processed.
 *   <li>A correction is a new revision at once when {@code W >= end} at its arrival ({@code W}
 *       before the event advances its {@code W_p}); otherwise it is held until {@code W} passes
 *       {@code end}.
 *   <li>A revision holds its window's on-time events, then its corrections in revision order; its
 *       values aggregate them in log order ({@link LogPlace}), as the engine applies them, so a SUM
 *       of doubles over partitions does not depend on their interleaving.
 *   <li>A final record repeats its last revision whole: number, predecessor, values, digest and
 *       offsets. A preview carries the identity of its window and the offsets of the on-time events
 *       it shows.
 *   <li>The identity's key is the key columns as the query outputs them ({@code customer_id AS
 *       customer} gives {@code customer}); its values are the aggregate columns.
 *   <li>An event without a value for the event-time column is quarantined, as in {@link Oracle}.
 *   <li>With {@code event_id}, an event is judged by {@link EventIds} after the clock (it has
 *       advanced {@code W_p}) and before the WHERE and the windows: a duplicate or a conflict is in
 *       no window, and a repeat within the horizon is a duplicate even when its windows would have
 *       refused it as too late. The copies of an id are judged in log order ({@link LogPlace}), not
 *       in delivery order: of two copies on two partitions, the one kept may be the one delivered
 *       second (ADR 0017).
 * </ul>
 */
public final class WindowedOracle {
  private final SourceDeclaration source;
  private final GroupedQuery query;
  private final WindowPolicy policy;
  private final String eventTime;

  private WindowedOracle(
      SourceDeclaration source, ModelQuery query, WindowPolicy policy, String sql) {
    this.source = source;
    this.query = new GroupedQuery(query, source.schema(), sql);
    this.policy = policy;
    this.eventTime =
        source
            .eventTime()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "windowed model "
                            + policy.model()
                            + " needs an event-time source, and "
                            + source.name()
                            + " has no event_time"));
  }

  /**
   * The oracle of a windowed model: its source (event-time column, watermark delay, schema), its
   * query (WHERE, key, aggregates) and its window policy.
   *
   * @throws IllegalArgumentException when the source has no event time
   */
  public static WindowedOracle of(SourceDeclaration source, ModelQuery query, WindowPolicy policy) {
    return new WindowedOracle(source, query, policy, null);
  }

  /**
   * The oracle of a windowed model of a project: its source, query and the window policy its {@code
   * streamform.yml} entry declares. A processing-time {@code early_results} has no previews here:
   * they depend on timing, and fixtures do not compare them.
   *
   * @throws IllegalArgumentException when the model has no window
   */
  public static WindowedOracle of(DeclaredModel model) {
    ModelDeclaration m = model.model();
    WindowSpec window =
        m.window()
            .orElseThrow(
                () -> new IllegalArgumentException("model " + m.name() + " has no window"));
    EarlyResults early = m.earlyResults();
    WindowPolicy policy =
        new WindowPolicy(
            m.name(),
            window.size(),
            window.every(),
            m.allowedLateness(),
            early.kind() == EarlyResults.Kind.EVERY_EVENTS ? early.everyEvents() : 0,
            m.generation(),
            window
                .calendarUnit()
                .map(
                    u ->
                        new WindowPolicy.Calendar(
                            u == WindowSpec.CalendarUnit.DAY
                                ? java.time.temporal.ChronoUnit.DAYS
                                : u == WindowSpec.CalendarUnit.WEEK
                                    ? java.time.temporal.ChronoUnit.WEEKS
                                    : java.time.temporal.ChronoUnit.MONTHS,
                            window.zoneOrUtc(),
                            window.weekStarts()))
                .orElse(null));
    return new WindowedOracle(model.source(), model.query(), policy, m.sql());
  }

  /** The window policy this oracle applies. */
  public WindowPolicy policy() {
    return policy;
  }

  /** What docs/semantics.md says {@code fixture}'s given items must produce. */
  public WindowedOutcome run(Fixture fixture) {
    return run(fixture.given());
  }

  /**
   * What docs/semantics.md says {@code given} (items in delivery order, then the end of input) must
   * produce.
   */
  public WindowedOutcome run(List<Fixture.Given> given) {
    return new Run(given, idsOf(given)).play(true);
  }

  /**
   * What a live topic holding {@code given} (items in delivery order) must have produced once all
   * of them are read: {@link #run(List)} without the end of the input, which a Kafka topic never
   * has (docs/semantics.md §6), so a window is revised or final only as far as the items' own
   * {@code min_p W_p} has gone.
   */
  public WindowedOutcome runUnended(List<Fixture.Given> given) {
    return new Run(given, idsOf(given)).play(false);
  }

  /** The ids of {@code given}'s events, judged in log order ({@link EventIds#inLogOrder}). */
  private EventIds idsOf(List<Fixture.Given> given) {
    return EventIds.inLogOrder(source, List.of(), probe -> new Run(given, probe).play(false));
  }

  /**
   * When {@code fixture}'s events were judged, its partitions' watermarks moved and each record was
   * emitted.
   */
  public Timeline timeline(Fixture fixture) {
    Run run = new Run(fixture.given(), idsOf(fixture.given()));
    run.play(true);
    return run.timeline;
  }

  /**
   * What docs/semantics.md says {@code fixture}'s given items must produce, in the shape a runner's
   * run has ({@link FixtureOutcome}: the same event ids, value types and order), so the two compare
   * by {@link FixtureOutcome#canonical()}.
   */
  public FixtureOutcome outcome(Fixture fixture) {
    WindowedOutcome out = run(fixture);
    OutcomeBuilder b = new OutcomeBuilder().processed(out.eventsProcessed());
    for (Row r : out.rows()) {
      SortedMap<Integer, FixtureOutcome.Offsets> offsets = new TreeMap<>();
      r.offsets()
          .forEach(
              (p, o) -> offsets.put(p, new FixtureOutcome.Offsets(o.min(), o.max(), o.count())));
      b.revision(
          r.status().yamlName(),
          r.revision(),
          r.predecessor().orElse(null),
          r.windowStart(),
          r.windowEnd(),
          r.key(),
          r.values(),
          r.logicalWindowId(),
          r.projectionId(),
          r.aggregateDigest(),
          offsets);
    }
    for (Late l : out.late()) {
      Map<String, Object> record = new LinkedHashMap<>();
      source.schema().keySet().forEach(c -> record.put(c, l.item().event().get().get(c)));
      b.tooLate(l.eventId(), record, l.watermark(), l.windowStart());
    }
    out.quarantined().forEach(q -> b.quarantined(q.eventId(), q.reason()));
    for (WindowedOutcome.Duplicate d : out.duplicates()) {
      Map<String, Object> record = new LinkedHashMap<>();
      source.schema().keySet().forEach(c -> record.put(c, d.item().event().get().get(c)));
      b.duplicate(d.eventId(), record);
    }
    return b.build();
  }

  /** One window of one key: the state key of {@link Run#open}. */
  private record WindowId(List<Object> key, Instant start) {}

  /** An event a window accepted, where it came from. */
  private record Included(Map<String, Object> record, LogPlace place) {
    int partition() {
      return place.partition();
    }

    long offset() {
      return place.offset();
    }
  }

  /** One pass over a list of items, with the partitions they name. */
  private final class Run {
    private final List<Fixture.Given> given;

    /** The fixture's partitions (§6, pinned details); {@code W} is their minimum. */
    private final TreeSet<Integer> partitions = new TreeSet<>();

    private final Map<Integer, Long> nextOffset = new HashMap<>();
    private final Map<Integer, Instant> watermarks = new HashMap<>(); // absent: undefined
    private final Map<WindowId, Window> open = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();
    private final List<Late> late = new ArrayList<>();
    private final List<Quarantined> quarantined = new ArrayList<>();
    private final List<WindowedOutcome.Duplicate> duplicates = new ArrayList<>();
    private final EventIds ids;
    private int processed;
    private final Timeline timeline;

    /** The item being played; {@code given.size()} at the end of the input. */
    private int item;

    Run(List<Fixture.Given> given, EventIds ids) {
      this.given = given;
      this.ids = ids;
      this.timeline = new Timeline(given.size());
      for (Fixture.Given g : given) {
        if (!g.allPartitions()) {
          partitions.add(g.partition());
        }
      }
    }

    /** Plays every item; then, when {@code ended}, the end of the input. */
    WindowedOutcome play(boolean ended) {
      for (item = 0; item < given.size(); item++) {
        Fixture.Given g = given.get(item);
        if (g.watermark().isPresent()) {
          for (int p : g.allPartitions() ? partitions : List.of(g.partition())) {
            nextOffset.merge(p, 1L, Long::sum);
            watermarks.merge(p, g.watermark().get(), Oracle::later);
            timeline.watermark(item, p, watermarks.get(p));
          }
        } else {
          event(g);
        }
        fire(sourceWatermark());
      }
      if (ended) {
        fire(Instant.MAX); // the end of input: every W_p goes to infinity
      }
      return new WindowedOutcome(rows, late, quarantined, processed, duplicates);
    }

    private void event(Fixture.Given item) {
      int p = item.partition();
      long offset = nextOffset.merge(p, 1L, Long::sum) - 1;
      String id = p + "-" + offset;
      Map<String, Object> record = item.event().get();
      String noKey = query.missingKey(record);
      if (noKey != null) {
        // first, before its time and the clock: it moves no watermark (ADR 0088)
        timeline.event(this.item, id, p, null, watermarks.get(p), Timeline.Judgement.QUARANTINED);
        quarantined.add(new Quarantined(item, id, noKey));
        return;
      }
      Instant t = (Instant) record.get(eventTime);
      if (t == null) {
        timeline.event(this.item, id, p, null, watermarks.get(p), Timeline.Judgement.QUARANTINED);
        quarantined.add(
            new Quarantined(item, id, "no value for event-time column `" + eventTime + "`"));
        return;
      }
      Instant wp = watermarks.get(p);
      Instant w = sourceWatermark(); // at the event's arrival, before it advances W_p
      watermarks.put(p, Oracle.later(wp, t.minus(source.watermark())));
      timeline.watermark(this.item, p, watermarks.get(p));
      // after the clock, before the WHERE and the windows: a repeat is a duplicate even when its
      // windows would refuse it as too late (the clock keeps late events for a windowed model)
      EventIds.Verdict repeat = ids.judge(id, record, t, wp);
      if (repeat == EventIds.Verdict.DUPLICATE) {
        timeline.event(this.item, id, p, t, wp, Timeline.Judgement.DUPLICATE);
        duplicates.add(new WindowedOutcome.Duplicate(item, id));
        return;
      }
      if (repeat == EventIds.Verdict.CONFLICT || repeat == EventIds.Verdict.NO_ID) {
        timeline.event(this.item, id, p, t, wp, Timeline.Judgement.QUARANTINED);
        quarantined.add(
            new Quarantined(
                item,
                id,
                repeat == EventIds.Verdict.NO_ID ? ids.noIdReason() : ids.conflictReason(record)));
        return;
      }
      if (!query.selects(record)) {
        timeline.event(this.item, id, p, t, wp, Timeline.Judgement.ON_TIME);
        return; // judged by the clock, in no window
      }
      // an event in a window reaching past the range of timestamps (a local month that began in
      // the year 0, an hour that ends in the year 10000) is quarantined, in no window (WindowRange)
      for (Instant start : policy.windowStartsOf(t)) {
        Instant end = policy.windowEndOf(start);
        if (start.isBefore(Timestamps.MIN) || end.isAfter(Timestamps.MAX)) {
          timeline.event(this.item, id, p, t, wp, Timeline.Judgement.QUARANTINED);
          quarantined.add(
              new Quarantined(
                  item,
                  id,
                  WindowRange.refusal(t.toEpochMilli(), start.toEpochMilli(), end.toEpochMilli())));
          return;
        }
      }
      // an event whose value would take a sum of a window that accepts it out of its type (or a
      // decimal average, even of a window it would open) is quarantined, in no window and without
      // its too-late rows (WindowedAggregate's rule)
      for (Instant start : policy.windowStartsOf(t)) {
        Instant end = policy.windowEndOf(start);
        Window window = open.get(new WindowId(query.keyOf(record), start));
        String overflow =
            wp != null && !wp.isBefore(end.plus(policy.allowedLateness()))
                ? null
                : query.overflow(window == null ? List.of() : window.appliedRecords(), record);
        if (overflow != null) {
          timeline.event(this.item, id, p, t, wp, Timeline.Judgement.QUARANTINED);
          quarantined.add(new Quarantined(item, id, overflow));
          return;
        }
      }
      boolean accepted = false;
      boolean correction = false;
      for (Instant start : policy.windowStartsOf(t)) {
        Instant end = policy.windowEndOf(start);
        if (wp != null && !wp.isBefore(end.plus(policy.allowedLateness()))) {
          late.add(new Late(item, id, start, wp));
          continue;
        }
        accepted = true;
        Window window =
            open.computeIfAbsent(
                new WindowId(query.keyOf(record), start), k -> new Window(k, record));
        Included e = new Included(record, new LogPlace(wp, p, offset));
        window.applied.add(e);
        if (wp == null || wp.isBefore(end)) {
          window.onTime(e);
        } else { // a correction: held until W passes end, a revision at once when it has
          correction = true;
          window.held.add(e);
          if (w != null && !w.isBefore(end)) {
            window.release();
          }
        }
      }
      if (accepted) {
        processed++;
      }
      timeline.event(
          this.item,
          id,
          p,
          t,
          wp,
          !accepted
              ? Timeline.Judgement.LATE
              : correction ? Timeline.Judgement.CORRECTION : Timeline.Judgement.ON_TIME);
    }

    private void emit(Row row) {
      rows.add(row);
      timeline.emission(
          item,
          row.status().yamlName(),
          row.revision(),
          row.windowStart(),
          row.windowEnd(),
          row.key());
    }

    /**
     * {@code min_p W_p} over {@link #partitions}; null while any is undefined (or there is none).
     */
    private Instant sourceWatermark() {
      Instant min = null;
      for (int p : partitions) {
        Instant wp = watermarks.get(p);
        if (wp == null) {
          return null;
        }
        min = min == null || wp.isBefore(min) ? wp : min;
      }
      return min;
    }

    /** Emits what source watermark {@code w} has reached: by edge time, then key, then window. */
    private void fire(Instant w) {
      if (w == null) {
        return;
      }
      record Edge(Instant at, Window window, boolean isFinal) {}
      List<Edge> edges = new ArrayList<>();
      for (Window window : open.values()) {
        if (window.revision == 0 && !w.isBefore(window.end)) {
          edges.add(new Edge(window.end, window, false));
        }
        Instant finalAt = window.end.plus(policy.allowedLateness());
        if (!w.isBefore(finalAt)) {
          edges.add(new Edge(finalAt, window, true));
        }
      }
      edges.sort(
          Comparator.comparing(Edge::at)
              .thenComparing(e -> e.window().id.key(), WindowedOracle::compareKeys)
              .thenComparing(e -> e.window().id.start())
              .thenComparing(Edge::isFinal));
      for (Edge e : edges) {
        if (e.isFinal()) {
          emit(e.window().last.asFinal());
          open.remove(e.window().id);
        } else {
          e.window().release();
        }
      }
    }

    /** What one key's window holds until it is final. */
    private final class Window {
      final WindowId id;
      final Instant end;
      final Map<String, Object> keyRow;
      final List<Included> onTime = new ArrayList<>();

      /** Corrections waiting for {@code W >= end}, in arrival order. */
      final List<Included> held = new ArrayList<>();

      /** The events of the last revision, in the order they were added to it. */
      final List<Included> included = new ArrayList<>();

      /** Every event the window accepted, in arrival order: what its sums hold so far. */
      final List<Included> applied = new ArrayList<>();

      int revision;
      Row last;

      Window(WindowId id, Map<String, Object> first) {
        this.id = id;
        this.end = policy.windowEndOf(id.start());
        this.keyRow = query.keyRow(List.of(first));
      }

      List<Map<String, Object>> appliedRecords() {
        List<Map<String, Object>> records = new ArrayList<>();
        applied.forEach(e -> records.add(e.record()));
        return records;
      }

      void onTime(Included e) {
        onTime.add(e);
        int n = policy.earlyEveryEvents();
        if (n > 0 && onTime.size() % n == 0) {
          emit(row(WindowStatus.EARLY, 0, onTime));
        }
      }

      /** Revision 1 (unless there is one) and then one revision per held correction. */
      void release() {
        if (revision == 0 && !onTime.isEmpty()) {
          included.addAll(onTime);
          revise(WindowStatus.ON_TIME);
        }
        for (Included c : held) {
          included.add(c);
          revise(WindowStatus.CORRECTED);
        }
        held.clear();
      }

      private void revise(WindowStatus status) {
        revision++;
        last = row(status, revision, included);
        emit(last);
      }

      private Row row(WindowStatus status, int number, List<Included> events) {
        List<Map<String, Object>> records = new ArrayList<>();
        SortedMap<Integer, Offsets> offsets = new TreeMap<>();
        // folded in log order, as the engine applies them: a double SUM of a key spread over
        // partitions must not depend on how they were interleaved (§6.26, ADR 0001)
        for (Included e : events.stream().sorted(Comparator.comparing(Included::place)).toList()) {
          records.add(e.record());
          offsets.merge(
              e.partition(),
              new Offsets(e.offset(), e.offset(), 1),
              (a, b) ->
                  new Offsets(
                      Math.min(a.min(), b.min()),
                      Math.max(a.max(), b.max()),
                      a.count() + b.count()));
        }
        Map<String, Object> values = query.aggregateRow(records);
        String logical =
            RevisionIdentity.logicalWindowId(
                policy.model(), keyRow, id.start(), end, policy.identityZone());
        return new Row(
            status,
            number,
            number > 1 ? Optional.of(number - 1) : Optional.empty(),
            id.start(),
            end,
            keyRow,
            values,
            logical,
            RevisionIdentity.projectionId(logical, policy.generation()),
            RevisionIdentity.aggregateDigest(values),
            offsets);
      }
    }
  }

  /** Keys in a stable order for emitting: column by column, nulls first. */
  private static int compareKeys(List<Object> a, List<Object> b) {
    Comparator<Object> byValue = Comparator.nullsFirst(GroupedQuery::compare);
    for (int i = 0; i < a.size(); i++) {
      int c = byValue.compare(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }
}

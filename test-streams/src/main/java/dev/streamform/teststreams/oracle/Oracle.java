package dev.streamform.teststreams.oracle;

import dev.streamform.core.time.LateEvents;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.OutcomeBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The reference implementation of docs/semantics.md §2–§3, in plain Java: one loop over the
 * delivered items (the clock), a map of partition watermarks, then one over the events the clock
 * passed in log order ({@link LogPlace}) with a map of key states. It shares no code with the Beam
 * transforms; it exists to be obviously right, so that whatever a runner produces can be compared
 * with it.
 *
 * <p>Its answer has the shape of a runner's ({@link FixtureOutcome}), with the same event ids
 * ({@code <partition>-<offset>}, a watermark item taking an offset in every partition it applies
 * to) and the same value types, so the two compare by {@link FixtureOutcome#canonical()}.
 *
 * <p>Decisions it encodes, beyond the text of §2–§3: lateness and expiry are judged against the
 * event's own partition's watermark at its arrival (a key's state is gone iff {@code W_p >=
 * latest(k) + retention}); a watermark item with no partition applies to every partition of the
 * fixture (partition 0 and every partition an item names); the processed count includes events that
 * pass the clock but not the WHERE clause; decimals are exact and {@code AVG(decimal(p,s))} rounds
 * half-even to scale {@code max(s, 6)}; with {@code event_id} on the source, an event that passed
 * the clock is judged by {@link EventIds} before the model (a late event dropped by the clock never
 * reaches it: late, not a duplicate), and a duplicate or conflict still advances its partition's
 * watermark. Repeats of an id and a key's events are taken in log order, as the keyed stages take
 * them: of an id's copies on two partitions the first in log order is kept (ADR 0017), and a key
 * whose events are on several partitions applies them in log order, not in delivery order.
 */
public final class Oracle {
  private final SourceDeclaration source;
  private final ModelDeclaration model;
  private final GroupedQuery query;

  private Oracle(SourceDeclaration source, ModelDeclaration model, ModelQuery query) {
    this.source = source;
    this.model = model;
    this.query = new GroupedQuery(query, source.schema(), model.sql());
  }

  /** The oracle of a model: its source's clock, its key, retention and query. */
  public static Oracle of(SourceDeclaration source, ModelDeclaration model, ModelQuery query) {
    return new Oracle(source, model, query);
  }

  public static Oracle of(DeclaredModel model) {
    return of(model.source(), model.model(), model.query());
  }

  /** What docs/semantics.md says {@code fixture}'s given items must produce. */
  public FixtureOutcome run(Fixture fixture) {
    return run(fixture.given());
  }

  /** What docs/semantics.md says {@code given} (items in delivery order) must produce. */
  public FixtureOutcome run(List<Fixture.Given> given) {
    return play(given, new Timeline(given.size()));
  }

  /** When {@code fixture}'s events were judged, its watermarks moved and keys expired. */
  public Timeline timeline(Fixture fixture) {
    Timeline timeline = new Timeline(fixture.given().size());
    play(fixture.given(), timeline);
    return timeline;
  }

  /** An event that the clock passed, with where it stands in the log. */
  private record Passed(
      int item, String id, Map<String, Object> record, Instant t, Instant w, boolean late) {
    LogPlace place() {
      return EventIds.placeOf(id, w);
    }
  }

  /**
   * Two passes. The clock, item by item in delivery order: ids, partition watermarks, the
   * quarantine before the clock, late events dropped. Then the events it passed in log order
   * ({@link LogPlace}), as the keyed stages apply them (§3.1): repeats of an id (the first in log
   * order is kept, ADR 0017) and each key's changelog. Each output lists its rows in delivery
   * order, as a run's are read.
   */
  private FixtureOutcome play(List<Fixture.Given> given, Timeline timeline) {
    TreeSet<Integer> partitions = new TreeSet<>(List.of(0));
    given.forEach(g -> partitions.add(g.partition()));
    Map<Integer, Long> nextOffset = new HashMap<>();
    Map<Integer, Instant> watermarks = new HashMap<>(); // absent: undefined
    Map<List<Object>, KeyState> keys = new HashMap<>();
    OutcomeBuilder out = new OutcomeBuilder();
    Map<String, Integer> delivered = new HashMap<>(); // event id -> its item
    Map<String, List<Object>> keyOf = new HashMap<>(); // event id -> its key
    List<Passed> passed = new ArrayList<>();
    // an upsert model's ids are scoped by its key only with event_id_scope: key (ADR 0073)
    EventIds ids =
        new EventIds(
            source,
            source.eventIdScope() == SourceDeclaration.EventIdScope.KEY
                ? query.keyColumns()
                : List.of());
    Optional<String> eventTime = source.eventTime();
    for (int i = 0; i < given.size(); i++) {
      Fixture.Given item = given.get(i);
      if (item.watermark().isPresent()) {
        Instant w = item.watermark().get();
        for (int p : item.allPartitions() ? partitions : List.of(item.partition())) {
          nextOffset.merge(p, 1L, Long::sum);
          if (eventTime.isPresent()) {
            watermarks.merge(p, w, Oracle::later);
            timeline.watermark(i, p, watermarks.get(p));
          }
        }
        continue;
      }
      int p = item.partition();
      String id = p + "-" + (nextOffset.merge(p, 1L, Long::sum) - 1);
      Map<String, Object> record = item.event().get();
      delivered.put(id, i);
      String noKey = query.missingKey(record);
      if (noKey != null) {
        // first, before its time and the clock: it moves no watermark (ADR 0088)
        timeline.event(i, id, p, null, watermarks.get(p), Timeline.Judgement.QUARANTINED);
        out.quarantined(id, noKey);
        continue;
      }
      if (eventTime.isEmpty()) {
        passed.add(new Passed(i, id, record, null, null, false));
        continue;
      }
      Instant t = (Instant) record.get(eventTime.get());
      if (t == null) {
        timeline.event(i, id, p, null, watermarks.get(p), Timeline.Judgement.QUARANTINED);
        out.quarantined(id, "no value for event-time column `" + eventTime.get() + "`");
        continue;
      }
      Instant w = watermarks.get(p);
      boolean late = w != null && t.isBefore(w);
      if (late && source.lateEvents() == LateEvents.DROP) {
        timeline.event(i, id, p, t, w, Timeline.Judgement.LATE);
        out.late(id, sourceColumns(record), w);
        continue;
      }
      passed.add(new Passed(i, id, record, t, w, late));
      // a repeat passed the clock too: it advances its partition's watermark like any event
      watermarks.put(p, later(w, t.minus(source.watermark())));
      timeline.watermark(i, p, watermarks.get(p));
    }
    // without event time there is no stamp: the log order is each partition's offset order,
    // which delivery order keeps for a key that lives in one partition
    if (eventTime.isPresent()) {
      passed.sort(Comparator.comparing(Passed::place));
    }
    int processed = 0;
    for (Passed e : passed) {
      int i = e.item();
      int p = EventIds.placeOf(e.id(), null).partition();
      Map<String, Object> record = e.record();
      EventIds.Verdict repeat =
          e.t() == null ? EventIds.Verdict.FIRST : ids.judge(e.id(), record, e.t(), e.w());
      if (repeat == EventIds.Verdict.DUPLICATE) {
        timeline.event(i, e.id(), p, e.t(), e.w(), Timeline.Judgement.DUPLICATE);
        out.duplicate(e.id(), sourceColumns(record));
      } else if (repeat == EventIds.Verdict.CONFLICT || repeat == EventIds.Verdict.NO_ID) {
        timeline.event(i, e.id(), p, e.t(), e.w(), Timeline.Judgement.QUARANTINED);
        out.quarantined(
            e.id(),
            repeat == EventIds.Verdict.NO_ID ? ids.noIdReason() : ids.conflictReason(record));
      } else {
        timeline.event(
            i,
            e.id(),
            p,
            e.t(),
            e.w(),
            e.late() ? Timeline.Judgement.LATE_KEPT : Timeline.Judgement.ON_TIME);
        keyOf.put(e.id(), query.keyOf(record));
        if (apply(record, e.t(), e.w(), e.id(), keys, out, i, timeline)) {
          processed++;
        }
      }
    }
    timeline.inItemOrder();
    // each output in delivery order, as a run's are read, a key's changelog in log order
    return out.ordered(Comparator.comparing(delivered::get), keyOf::get)
        .processed(processed)
        .build();
  }

  /**
   * Applies one event with time {@code t} that arrived when its partition was at {@code w}; true
   * when it is processed, false when the WHERE selects it away (filtered, as {@code run} counts it,
   * not processed) or it is quarantined instead, its value taking an int64 sum of its key outside
   * int64 (the key's state is then as before it).
   */
  private boolean apply(
      Map<String, Object> record,
      Instant t,
      Instant w,
      String id,
      Map<List<Object>, KeyState> keys,
      OutcomeBuilder out,
      int item,
      Timeline timeline) {
    if (!query.selects(record)) {
      return false;
    }
    List<Object> key = query.keyOf(record); // the GROUP BY columns, as the record names them
    KeyState state = keys.get(key);
    Optional<Duration> retention = model.retention();
    if (state != null
        && retention.isPresent()
        && w != null
        && !w.isBefore(state.latest.plus(retention.get()))) {
      timeline.expiry(item, key, state.latest.plus(retention.get()));
      state = null; // expired: the key starts over
    }
    // a key's first event can be refused too: a decimal AVG of one value can pass its type
    String overflow = query.overflow(state == null ? List.of() : state.applied, record);
    if (overflow != null) {
      timeline.quarantined(item);
      out.quarantined(id, overflow);
      return false;
    }
    String op = state == null ? "insert" : "update";
    if (state == null) {
      state = new KeyState();
      keys.put(key, state);
    }
    state.applied.add(record);
    if (t != null) {
      state.latest = state.latest == null ? t : later(state.latest, t);
    }
    out.change(id, op, query.row(state.applied));
    return true;
  }

  /** Every column of the source, in schema order, as a runner reports a late event. */
  private Map<String, Object> sourceColumns(Map<String, Object> record) {
    Map<String, Object> all = new LinkedHashMap<>();
    for (Map.Entry<String, ColumnType> c : source.schema().entrySet()) {
      all.put(c.getKey(), record.get(c.getKey()));
    }
    return all;
  }

  /** The later of {@code a} (null: undefined) and {@code b}. */
  static Instant later(Instant a, Instant b) {
    return a == null || b.isAfter(a) ? b : a;
  }

  /** What a key holds: the events applied since it (re)started, and their largest event time. */
  private static final class KeyState {
    final List<Map<String, Object>> applied = new ArrayList<>();
    Instant latest;
  }
}

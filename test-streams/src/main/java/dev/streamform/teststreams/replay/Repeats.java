package dev.streamform.teststreams.replay;

import dev.streamform.core.text.Counts;
import dev.streamform.planner.DeclaredSource;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.PartitionClocks;
import dev.streamform.transforms.dedup.Deduplicate;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Repeats of a fixture's events by their declared id ({@code event_id:}), as a retried upload or a
 * redelivery brings them: an <b>exact</b> repeat (every column the same: a duplicate, dropped) and
 * a repeat with <b>another payload</b> (a conflict: quarantined with its reason, routed {@code
 * dead_lettered}). Neither may make a decision (docs/semantics.md §11).
 *
 * <p>Where: a repeat goes on its original's partition, so both keep their order in every arrival
 * order. Before the cut (the restore point, or the middle of the stream without one), the first two
 * events with an id get an exact repeat and a conflicting one right behind them, when both fit
 * before the cut. At the cut, two events read before it (those not repeated yet first, then the
 * latest first) get an exact and a conflicting repeat that arrive first after it, so the duplicate
 * detection must remember their ids across the restore; when only one such event is there, both
 * repeats are of it. Only events still within the horizon ({@code duplicates_within}) at the cut
 * are repeated there: beyond it a repeat is a new event by the contract, so it would test nothing.
 * Each repeat's partition watermark at its arrival depends on its partition's log only, so what it
 * must be is the same in every arrival order.
 */
public final class Repeats {
  private Repeats() {}

  /** An exact repeat (a duplicate) or a repeat with another payload (a conflict). */
  public enum Kind {
    EXACT,
    CONFLICT
  }

  /**
   * One repeat: its kind, its original's event id and its own ({@code <partition>-<offset>}),
   * whether it arrives after the cut, and for a conflict the column it changed.
   */
  public record Repeat(
      Kind kind, String originalId, String repeatId, boolean afterCut, String changed) {

    /** E.g. {@code 0-3, an exact repeat of 0-2 (before the restore)}. */
    public String describe(String cut) {
      return repeatId
          + ", "
          + (kind == Kind.EXACT ? "an exact repeat of " : "a repeat of ")
          + originalId
          + (kind == Kind.CONFLICT ? " with another " + changed : "")
          + " ("
          + (afterCut ? "after " : "before ")
          + cut
          + ")";
    }
  }

  /** The fixture with its repeats, and where they are. */
  public record Plan(Fixture fixture, List<Repeat> repeats, List<String> skipped) {}

  /**
   * {@code fixture} with repeats by {@code source}'s declared id; {@code cutAfterEvents} is the
   * restore point (events of the result before it), or 0 to cut in the middle.
   *
   * @throws IllegalArgumentException when the source declares no {@code event_id}
   */
  public static Plan add(Fixture fixture, DeclaredSource source, int cutAfterEvents) {
    Deduplicate dedup =
        source
            .deduplicate()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "source `"
                            + source.declaration().name()
                            + "` declares no event_id: a repeat could not be told from a new"
                            + " event. Declare `event_id: <column>` (and `duplicates_within:`)"
                            + " in its sources.yml to replay duplicates"));
    String id = dedup.idColumn();
    long horizon = dedup.horizon().getMillis();
    String eventTime = source.declaration().eventTime().orElse(null);
    List<Fixture.Given> items = fixture.given();
    List<Integer> eligible = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Map<String, Object> values = items.get(i).event().orElse(null);
      if (values != null
          && values.get(id) != null
          && (eventTime == null || values.get(eventTime) instanceof Instant)) {
        eligible.add(i);
      }
    }
    long events = items.stream().filter(g -> g.event().isPresent()).count();
    boolean restore = cutAfterEvents > 0;
    List<String> skipped = new ArrayList<>();

    // before the cut: the first two eligible events, each repeated right behind itself
    List<Planned> before = new ArrayList<>();
    int cut = restore ? cutAfterEvents : (int) ((events + 2) / 2);
    for (int k = 0; k < Math.min(2, eligible.size()); k++) {
      int at = eligible.get(k);
      // events up to the original, the repeats planted before it, and this repeat itself
      if (eventsThrough(items, at) + before.size() + 1 <= cut) {
        before.add(new Planned(at, k == 0 ? Kind.EXACT : Kind.CONFLICT));
      }
    }
    if (before.size() < 2) {
      skipped.add(
          Counts.of(2 - before.size(), "repeat")
              + " before the cut: too few events with an id fit before it");
    }
    List<Fixture.Given> out = new ArrayList<>();
    List<Placed> placed = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      out.add(items.get(i));
      for (Planned p : before) {
        if (p.item == i) {
          placed.add(new Placed(new Planned(out.size() - 1, p.kind), out.size(), false));
          out.add(repeatOf(items.get(i), p.kind, id, eventTime));
        }
      }
    }

    // at the cut: the position after the cut-th event of the stream with its early repeats
    int position = 0;
    for (int seen = 0; position < out.size() && seen < cut; position++) {
      if (out.get(position).event().isPresent()) {
        seen++;
      }
    }
    PartitionClocks clocks = clocksBefore(out, position, source, eventTime);
    List<Integer> candidates = new ArrayList<>(); // latest first: the likeliest within the horizon
    for (int i = position - 1; i >= 0; i--) {
      Fixture.Given g = out.get(i);
      if (g.event().isPresent()
          && eligible.contains(items.indexOf(g))
          && withinHorizon(g, clocks, eventTime, horizon)) {
        candidates.add(i);
      }
    }
    // events repeated before the cut last: each repeat names another event where it can
    Set<Integer> repeatedBefore = new HashSet<>();
    placed.forEach(p -> repeatedBefore.add(p.planned.item));
    candidates.sort(Comparator.comparing(repeatedBefore::contains));
    // two candidates: one repeat of each; one: both repeats of it (the conflicting one then
    // arrives after the exact one, and is still judged against the original's payload)
    List<Planned> atCut = new ArrayList<>();
    for (Kind kind : List.of(Kind.EXACT, Kind.CONFLICT)) {
      if (!candidates.isEmpty()) {
        atCut.add(new Planned(candidates.get(Math.min(atCut.size(), candidates.size() - 1)), kind));
      } else {
        skipped.add(
            (kind == Kind.EXACT ? "an exact" : "a conflicting")
                + " repeat after the cut: no event before it is still within duplicates_within");
      }
    }
    int insertAt = position;
    for (Planned p : atCut) {
      Fixture.Given original = out.get(p.item);
      out.add(insertAt, repeatOf(original, p.kind, id, eventTime));
      placed.add(new Placed(new Planned(out.indexOf(original), p.kind), insertAt, true));
      insertAt++;
    }

    Fixture.Builder b = Fixture.builder(fixture.name() + "-repeats", fixture.model());
    for (Fixture.Given g : out) {
      if (g.event().isPresent()) {
        b.event(g.partition(), g.event().get());
      } else {
        b.watermark(
            g.allPartitions() ? java.util.Optional.empty() : java.util.Optional.of(g.partition()),
            g.watermark().get());
      }
    }
    Fixture result = b.build();
    FixtureStream stream = FixtureStream.compile(result, source);
    List<Repeat> repeats = new ArrayList<>();
    for (Placed p : placed) {
      Fixture.Given original = result.given().get(p.planned.item);
      Fixture.Given repeat = result.given().get(p.at);
      repeats.add(
          new Repeat(
              p.planned.kind,
              stream.eventIdOf(original),
              stream.eventIdOf(repeat),
              p.afterCut,
              p.planned.kind == Kind.CONFLICT ? changedColumn(original, id, eventTime) : ""));
    }
    return new Plan(result, repeats, skipped);
  }

  private record Planned(int item, Kind kind) {}

  private record Placed(Planned planned, int at, boolean afterCut) {}

  private static long eventsThrough(List<Fixture.Given> items, int index) {
    return items.subList(0, index + 1).stream().filter(g -> g.event().isPresent()).count();
  }

  /** The source clock's partition watermarks after the first {@code count} items of {@code out}. */
  private static PartitionClocks clocksBefore(
      List<Fixture.Given> out, int count, DeclaredSource source, String eventTime) {
    TreeSet<Integer> partitions = new TreeSet<>();
    out.stream().filter(g -> !g.allPartitions()).forEach(g -> partitions.add(g.partition()));
    PartitionClocks clocks =
        new PartitionClocks(
            partitions, source.declaration().watermark().toMillis(), eventTime != null);
    for (Fixture.Given g : out.subList(0, count)) {
      if (g.event().isPresent()) {
        Object t = eventTime == null ? null : g.event().get().get(eventTime);
        if (t instanceof Instant) {
          clocks.event(g.partition(), ((Instant) t).toEpochMilli());
        }
      } else {
        for (int p : g.allPartitions() ? partitions : List.of(g.partition())) {
          clocks.punctuation(p, g.watermark().get().toEpochMilli());
        }
      }
    }
    return clocks;
  }

  /**
   * Whether a repeat of {@code g} arriving now on its partition still finds its id (Deduplicate: a
   * repeat is judged by its own partition's watermark at arrival, against first time + horizon).
   */
  private static boolean withinHorizon(
      Fixture.Given g, PartitionClocks clocks, String eventTime, long horizon) {
    Long w = clocks.watermarkOf(g.partition());
    if (w == null || eventTime == null) {
      return true;
    }
    return w < ((Instant) g.event().get().get(eventTime)).toEpochMilli() + horizon;
  }

  private static Fixture.Given repeatOf(
      Fixture.Given original, Kind kind, String id, String eventTime) {
    Map<String, Object> values = new LinkedHashMap<>(original.event().get());
    if (kind == Kind.CONFLICT) {
      String column = changedColumn(original, id, eventTime);
      values.put(column, changed(values.get(column)));
    }
    return Fixture.builder("repeat", "repeat")
        .event(original.partition(), values)
        .build()
        .given()
        .get(0);
  }

  /** The column a conflicting repeat changes: the first with a value, other than id and time. */
  private static String changedColumn(Fixture.Given original, String id, String eventTime) {
    for (Map.Entry<String, Object> e : original.event().get().entrySet()) {
      if (!e.getKey().equals(id) && !e.getKey().equals(eventTime) && e.getValue() != null) {
        return e.getKey();
      }
    }
    return eventTime == null ? id : eventTime;
  }

  private static Object changed(Object value) {
    if (value instanceof BigDecimal d) {
      return d.add(BigDecimal.ONE);
    }
    if (value instanceof Long l) {
      return l + 1;
    }
    if (value instanceof Integer n) {
      return n + 1;
    }
    if (value instanceof Double d) {
      return d + 1;
    }
    if (value instanceof Instant t) {
      return t.plusSeconds(1);
    }
    if (value instanceof Boolean flag) {
      return !flag;
    }
    return value + " (edited)";
  }
}

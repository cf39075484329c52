package dev.streamform.teststreams.oracle;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.declarations.LinearModel;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.OutcomeBuilder;
import dev.streamform.transforms.envelope.DeclaredId;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The reference implementation of a scoring model (docs/semantics.md §11,
 * docs/guides/scoring-models.md), in plain Java: what a fixture's {@code given:} items, in delivery
 * order, must make of every event — its route, features, score and identity — and the final feature
 * state. It shares no code with {@code ScoreEvents}: it reads the declaration (range, contract,
 * lateness, late action, skew bound, the linear model and its digest) and recomputes the rest. It
 * answers in the shape the fixture harness reads from a run ({@link FixtureOutcome}), so the two
 * compare by {@link FixtureOutcome#canonical()}.
 *
 * <p>Two passes. <b>The clock</b>, item by item in delivery order, as {@link Oracle} does (§2):
 * each event gets its id ({@code <partition>-<offset>}, a watermark item taking an offset in every
 * partition it applies to) and its arrival watermark {@code A} (its partition's {@code W_p} before
 * it; undefined at first); an event without its time is quarantined (dead-lettered); with {@code
 * event_id}, a repeat is judged by {@link EventIds} — the copies of an id in log order, as below,
 * so the copy kept is the first in log order, not the first delivered; the WHERE clause filters.
 * <b>The keys</b>: each key's events in <em>log order</em> — by {@code A} (undefined first), then
 * partition, then offset — a function of the per-partition logs, whatever the delivery order:
 *
 * <ul>
 *   <li>an event without a value in its declared {@code arrival} column is dead-lettered (ADR
 *       0113);
 *   <li>an event more than {@code max_clock_skew} ahead of its arrival clock (its {@code arrival}
 *       column, or the ingest time) is dead-lettered and changes nothing;
 *   <li>an event with {@code A > t + lateness} is late (equal is on time, ADR 0198): the decisions
 *       it would change are those of the key's events already decided with time {@code s}, {@code t
 *       <= s < t + range}, and still revisable ({@code s + range + lateness > A}, ADR 0039); it is
 *       applied to the state when late events update it, routed by the late action, and under
 *       {@code revise} each of those decisions gets revision n + 1 reading the state as applied so
 *       far (with the late event), {@code state_cutoff = scored_at = A};
 *   <li>any other event is applied (the key's state revision counts it). As of occurrence it is
 *       decided at its <em>edge</em> {@code t}: before the first later event of its key with {@code
 *       A >= t} is applied (its arrival proves the watermark reached {@code t}), or at the end — at
 *       once if {@code A >= t} already; it reads the other applied events with time in {@code (t -
 *       range, t]} that arrived while their partition was below {@code t}. Latest available:
 *       decided as it is applied, in the same log order (ADR 0112), from every other applied event
 *       with time after {@code t - range}.
 * </ul>
 *
 * <p>The score is {@code bias + sum(weight * input)} over the features and the event's numeric
 * columns, computed exactly in decimals and rounded half-even to 6 places. A decision is never made
 * from a feature or a score that is not a finite double (ADR 0084): a first decision's event is
 * dead-lettered ({@code non_finite}) naming the first such feature in select order, else the score;
 * a late event that would revise a decision into one is reconciled instead and revises nothing. The
 * ids follow the recipe of docs/guides/scoring-models.md, hashed by {@link RevisionIdentity#hash}
 * (the canonical SHA-256 of docs/reference/revision-identity.md: the one function both sides share;
 * ADR 0039).
 */
public final class ScoringOracle {
  private static final DateTimeFormatter MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** The default preprocessor's digest: H(["preprocessor", "features-and-numeric-columns", 1]). */
  static final String PREPROCESSING_DIGEST =
      RevisionIdentity.hash(List.of("preprocessor", "features-and-numeric-columns", 1L));

  private final String modelName;
  private final SourceDeclaration source;
  private final List<String> keyColumns;
  private final GroupedQuery query;
  private final DecisionsSpec spec;
  private final int generation;
  private final Score score;
  private final long range;
  private final long lateness;
  private final Misreading misreading;

  /**
   * A rule read wrongly on purpose, to show that a comparison with the oracle bites (a test plants
   * it; nothing else does).
   */
  public enum Misreading {
    NONE,
    /** Features over {@code [t - range, t]} instead of {@code (t - range, t]}. */
    RANGE_START_INCLUDED
  }

  /** How a decision's inputs become its score. */
  private interface Score {
    /**
     * The score rounded half-even to 6 places; infinite or NaN when it is not a finite double.
     * {@code nan} names the inputs that are NaN (no decimal holds one): a weighed one makes a
     * linear score NaN; a Scorer class is given them as NaN, as the product gives them, and
     * decides.
     */
    double of(Map<String, BigDecimal> inputs, Set<String> nan);

    String digest();
  }

  private ScoringOracle(DeclaredModel declared, Misreading misreading) {
    this.misreading = misreading;
    ModelDeclaration model = declared.model();
    this.modelName = model.name();
    this.source = declared.source();
    this.keyColumns = List.copyOf(model.key());
    this.query = new GroupedQuery(declared.query(), source.schema(), model.sql());
    this.spec =
        model
            .decisions()
            .orElseThrow(
                () -> new IllegalArgumentException("model " + model.name() + " has no decisions"));
    this.generation = model.generation();
    this.range = spec.featuresOver().toMillis();
    this.lateness = spec.lateness().toMillis();
    this.score = scoreOf(spec);
    if (source.eventTime().isEmpty()) {
      throw new IllegalArgumentException(
          "scoring model " + modelName + " needs an event-time source");
    }
  }

  /** The oracle of a declared scoring model. */
  public static ScoringOracle of(DeclaredModel model) {
    return new ScoringOracle(model, Misreading.NONE);
  }

  /** This oracle reading one rule wrongly (to prove a comparison catches it). */
  public static ScoringOracle misreading(DeclaredModel model, Misreading misreading) {
    return new ScoringOracle(model, misreading);
  }

  /** Whether event time {@code s} is in the range {@code (t - range, ...} of event time t. */
  private boolean afterRangeStart(long s, long t) {
    return misreading == Misreading.RANGE_START_INCLUDED ? s >= t - range : s > t - range;
  }

  private static Score scoreOf(DecisionsSpec spec) {
    if (spec.linear().isPresent()) {
      LinearModel m = spec.linear().get();
      Map<String, BigDecimal> weights = new TreeMap<>();
      m.weights().forEach((k, v) -> weights.put(k, BigDecimal.valueOf(v)));
      BigDecimal bias = BigDecimal.valueOf(m.bias());
      return new Score() {
        @Override
        public double of(Map<String, BigDecimal> inputs, Set<String> nan) {
          for (String n : nan) {
            if (weights.containsKey(n)) {
              return Double.NaN;
            }
          }
          BigDecimal s = bias;
          for (Map.Entry<String, BigDecimal> w : weights.entrySet()) {
            BigDecimal x = inputs.get(w.getKey());
            if (x != null) {
              s = s.add(w.getValue().multiply(x));
            }
          }
          // exact, then the nearest double: infinite past the largest double
          return s.setScale(6, RoundingMode.HALF_EVEN).doubleValue();
        }

        @Override
        public String digest() {
          return m.digest(); // the SHA-256 of the file's bytes, read with the declaration
        }
      };
    }
    // A Scorer class is the model itself, not the transform: the oracle asks it for the score.
    String name = spec.scorer().orElseThrow();
    dev.streamform.transforms.decisions.Scorer scorer;
    try {
      scorer =
          (dev.streamform.transforms.decisions.Scorer)
              Class.forName(name).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalArgumentException("scorer " + name + " cannot be made: " + e, e);
    }
    return new Score() {
      @Override
      public double of(Map<String, BigDecimal> inputs, Set<String> nan) {
        // every input, in the product's order: the features, then the event's numeric columns
        Map<String, Double> in = new LinkedHashMap<>();
        inputs.forEach((k, v) -> in.put(k, nan.contains(k) ? Double.NaN : v.doubleValue()));
        double raw = scorer.score(in);
        return Double.isFinite(raw)
            ? BigDecimal.valueOf(raw).setScale(6, RoundingMode.HALF_EVEN).doubleValue()
            : raw;
      }

      @Override
      public String digest() {
        return scorer.digest();
      }
    };
  }

  /** An event that passed the clock, the duplicates and the WHERE: the keyed stage's input. */
  private record Event(
      int item,
      String id,
      int partition,
      long offset,
      Instant time,
      Instant arrivalWatermark,
      Map<String, Object> record) {
    long arrivalOrMin() {
      return arrivalWatermark == null ? Long.MIN_VALUE : arrivalWatermark.toEpochMilli();
    }

    LogPlace place() {
      return new LogPlace(arrivalWatermark, partition, offset);
    }
  }

  /** A routed row with the delivery position of its event, for ordering. */
  private record Placed(int item, FixtureOutcome.Routed row) {}

  /** What docs/semantics.md §11 says {@code fixture}'s given items must produce. */
  public FixtureOutcome run(Fixture fixture) {
    return run(fixture.given());
  }

  /** What docs/semantics.md §11 says {@code given} (items in delivery order) must produce. */
  public FixtureOutcome run(List<Fixture.Given> given) {
    OutcomeBuilder out = new OutcomeBuilder();
    List<Placed> rows = new ArrayList<>();
    Map<List<Object>, List<Event>> byKey = new LinkedHashMap<>();
    // the copies of an id are judged in log order, as a key's events are played (ADR 0017)
    EventIds ids =
        EventIds.inLogOrder(
            source,
            List.of(),
            probe ->
                clock(
                    given, new OutcomeBuilder(), new ArrayList<>(), new LinkedHashMap<>(), probe));
    clock(given, out, rows, byKey, ids);
    Map<String, String> finalState = new TreeMap<>();
    for (List<Event> events : byKey.values()) {
      new KeyRun(events, rows).play(finalState);
    }
    rows.sort(Comparator.comparingInt(Placed::item).thenComparingInt(p -> p.row().revision()));
    rows.forEach(p -> out.routed(p.row()));
    // processed: the events decided (their first decision), as streamform run counts them; a late
    // event is late whether or not it updates the state
    int processed = (int) rows.stream().filter(p -> p.row().route().equals("scored")).count();
    return out.processed(processed).finalState(finalState).buildDecisions();
  }

  /**
   * The first pass: ids, arrival watermarks, quarantine, repeats ({@code ids}, which judge an id's
   * copies in log order), the WHERE (§2).
   */
  private void clock(
      List<Fixture.Given> given,
      OutcomeBuilder out,
      List<Placed> rows,
      Map<List<Object>, List<Event>> byKey,
      EventIds ids) {
    String eventTime = source.eventTime().get();
    TreeSet<Integer> partitions = new TreeSet<>();
    given.stream().filter(g -> !g.allPartitions()).forEach(g -> partitions.add(g.partition()));
    Map<Integer, Long> nextOffset = new HashMap<>();
    Map<Integer, Instant> watermarks = new HashMap<>();
    for (int i = 0; i < given.size(); i++) {
      Fixture.Given item = given.get(i);
      if (item.watermark().isPresent()) {
        for (int p : item.allPartitions() ? partitions : List.of(item.partition())) {
          nextOffset.merge(p, 1L, Long::sum);
          watermarks.merge(p, item.watermark().get(), Oracle::later);
        }
        continue;
      }
      int p = item.partition();
      long offset = nextOffset.merge(p, 1L, Long::sum) - 1;
      String id = p + "-" + offset;
      Map<String, Object> record = item.event().get();
      String noKey = query.missingKey(record);
      if (noKey != null) {
        // first, before its time and the clock: it moves no watermark (ADR 0088)
        quarantine(out, rows, i, id, record, noKey);
        continue;
      }
      Instant t = (Instant) record.get(eventTime);
      if (t == null) {
        quarantine(out, rows, i, id, record, "no value for event-time column `" + eventTime + "`");
        continue;
      }
      Instant a = watermarks.get(p);
      EventIds.Verdict repeat = ids.judge(id, record, t, a);
      if (repeat == EventIds.Verdict.DUPLICATE) {
        out.duplicate(id, columns(record));
      } else if (repeat != EventIds.Verdict.FIRST) {
        String reason =
            repeat == EventIds.Verdict.NO_ID ? ids.noIdReason() : ids.conflictReason(record);
        quarantine(out, rows, i, id, record, reason);
      } else if (query.selects(record)) {
        byKey
            .computeIfAbsent(query.keyOf(record), k -> new ArrayList<>())
            .add(new Event(i, id, p, offset, t, a, record));
      }
      // every event with a time moves its partition's clock, whatever happens to it after —
      // but for one whose time is impossible, dead-lettered for its clock (ADR 0195)
      if (!impossibleClock(record, t)) {
        watermarks.put(p, Oracle.later(a, t.minus(source.watermark())));
      }
    }
  }

  /** A quarantined event, routed dead_lettered as the fixture harness reads it. */
  private static void quarantine(
      OutcomeBuilder out,
      List<Placed> rows,
      int item,
      String id,
      Map<String, Object> record,
      String reason) {
    out.quarantined(id, reason);
    String kind =
        reason.startsWith("event_id `")
            ? "event_id_conflict"
            : reason.startsWith("no value for event_id")
                ? "no_event_id"
                : reason.startsWith("key column `") ? "no_key_value" : "malformed_timestamp";
    rows.add(
        new Placed(
            item,
            new FixtureOutcome.Routed(
                "dead_lettered",
                id,
                new LinkedHashMap<>(record),
                Map.of(),
                null,
                0,
                0,
                // by name, as the run's rows are: Map.of's order changes from one JVM to the next
                new TreeMap<>(Map.of("reason", kind, "description", reason)))));
  }

  /**
   * The name a decision gives its event (§11): the value of the source's declared {@code event_id}
   * column as text, or the event's position {@code <partition>-<offset>} without one.
   */
  private String named(Event e) {
    String id = DeclaredId.text(source.eventId().map(c -> e.record().get(c)).orElse(null));
    return id == null ? e.id() : id;
  }

  /** Every column of the source, in schema order (null when absent), as a run reports it. */
  private Map<String, Object> columns(Map<String, Object> record) {
    Map<String, Object> all = new LinkedHashMap<>();
    for (String c : source.schema().keySet()) {
      all.put(c, record.get(c));
    }
    return all;
  }

  /** An event applied to a key's state. */
  private record Applied(Event event, boolean late) {}

  /** A decided event: its latest decision id and revision. */
  private static final class Decided {
    final Event event;
    String latestId;
    int revision = 1;

    Decided(Event event, String latestId) {
      this.event = event;
      this.latestId = latestId;
    }
  }

  /** The second pass over one key's events, in log order. */
  private final class KeyRun {
    private final List<Event> events;
    private final List<Placed> rows;
    private final List<Applied> applied = new ArrayList<>();
    private final List<Decided> decided = new ArrayList<>();
    // as of occurrence: applied, not yet decided, in the order they were applied
    private final List<Event> waiting = new ArrayList<>();

    KeyRun(List<Event> events, List<Placed> rows) {
      this.events = new ArrayList<>(events);
      this.rows = rows;
      // in log order under either contract: latest available too (ADR 0112)
      this.events.sort(Comparator.comparing(Event::place));
    }

    /** Plays the key, adding its routed rows and its final state. */
    void play(Map<String, String> finalState) {
      for (Event e : events) {
        // e's arrival at A proves its partition reached A: every waiting edge t <= A has passed
        decideWaiting(e.arrivalWatermark() == null ? null : e.arrivalWatermark().toEpochMilli());
        handle(e);
      }
      decideWaiting(Long.MAX_VALUE);
      if (!applied.isEmpty()) {
        List<String> ids = new ArrayList<>();
        applied.forEach(x -> ids.add(x.event().id() + (x.late() ? " (late)" : "")));
        finalState.put(
            keyText(applied.get(0).event().record()),
            "revision " + applied.size() + ": " + String.join(", ", ids));
      }
    }

    /** Decides the waiting events whose time is at or before {@code reached} (null: none). */
    private void decideWaiting(Long reached) {
      if (reached == null) {
        return;
      }
      while (true) {
        Event first = null;
        for (Event w : waiting) {
          if (w.time().toEpochMilli() <= reached
              && (first == null || w.time().isBefore(first.time()))) {
            first = w;
          }
        }
        if (first == null) {
          return;
        }
        waiting.remove(first);
        decideFirst(first, first.time(), first.time());
      }
    }

    /** A clock-skew dead letter: {@code what} follows the event's partition and offset. */
    private void skewed(Event e, String what) {
      rows.add(
          new Placed(
              e.item(),
              new FixtureOutcome.Routed(
                  "dead_lettered",
                  e.id(),
                  new LinkedHashMap<>(e.record()),
                  Map.of(),
                  null,
                  0,
                  0,
                  skewIdentity(
                      "partition " + e.partition() + " offset " + e.offset() + ": " + what))));
    }

    private void handle(Event e) {
      long t = e.time().toEpochMilli();
      if (spec.arrival().isPresent() && e.record().get(spec.arrival().get()) == null) {
        // a declared arrival column without a value: dead-lettered (ADR 0113)
        String column = spec.arrival().get();
        skewed(
            e,
            "arrival column `"
                + column
                + "` is missing, so its clock skew cannot be judged; give the record its `"
                + column
                + "`");
        return;
      }
      Instant arrivedAt = arrivedAt(e);
      Optional<Duration> skew = spec.maxClockSkew();
      if (skew.isPresent() && t - arrivedAt.toEpochMilli() > skew.get().toMillis()) {
        skewed(
            e,
            "event time "
                + MILLIS.format(e.time())
                + " is "
                + (t - arrivedAt.toEpochMilli())
                + "ms ahead of its arrival "
                + MILLIS.format(arrivedAt)
                + " (max clock skew "
                + skew.get().toMillis()
                + "ms)");
        return;
      }
      Instant a = e.arrivalWatermark();
      if (a != null && a.toEpochMilli() > t + lateness) {
        late(e, a);
        return;
      }
      applied.add(new Applied(e, false));
      if (spec.contract() == DecisionsSpec.Contract.LATEST_AVAILABLE) {
        Instant at = a == null ? e.time() : a;
        decideFirst(e, at, at);
      } else if (a == null || a.toEpochMilli() < t) {
        waiting.add(e);
      } else {
        decideFirst(e, e.time(), a);
      }
    }

    /** An event's first decision, from the state as of {@code cutoff}. */
    private void decideFirst(Event e, Instant cutoff, Instant scoredAt) {
      long t = e.time().toEpochMilli();
      List<Map<String, Object>> read = new ArrayList<>();
      for (Applied x : applied) {
        long s = x.event().time().toEpochMilli();
        boolean reads;
        if (spec.contract() == DecisionsSpec.Contract.LATEST_AVAILABLE) {
          reads = afterRangeStart(s, t);
        } else {
          reads =
              afterRangeStart(s, t) && s <= t && x.event().arrivalOrMin() < cutoff.toEpochMilli();
        }
        if (reads && !x.event().id().equals(e.id())) {
          read.add(x.event().record());
        }
      }
      Answer answer =
          answer(
              e,
              read,
              e.time().minusMillis(range),
              spec.contract() == DecisionsSpec.Contract.LATEST_AVAILABLE ? null : e.time());
      if (answer.refusal() != null) {
        rows.add(
            new Placed(
                e.item(),
                new FixtureOutcome.Routed(
                    "dead_lettered",
                    e.id(),
                    new LinkedHashMap<>(e.record()),
                    Map.of(),
                    null,
                    0,
                    0,
                    new TreeMap<>(
                        Map.of(
                            "reason",
                            "non_finite",
                            "description",
                            "partition "
                                + e.partition()
                                + " offset "
                                + e.offset()
                                + ": "
                                + answer.refusal()
                                + ", so no decision is made from it; "
                                + answer.fix())))));
        return; // no decision: nothing a late event could revise
      }
      String id = decision(e, answer, cutoff, scoredAt, 1, null, null);
      decided.add(new Decided(e, id));
    }

    /** A late event (its partition's {@code A > t + lateness}). */
    private void late(Event e, Instant a) {
      long t = e.time().toEpochMilli();
      List<Decided> affected = new ArrayList<>();
      for (Decided d : decided) {
        long s = d.event.time().toEpochMilli();
        if (t <= s && s < t + range && s + range + lateness > a.toEpochMilli()) {
          affected.add(d);
        }
      }
      affected.sort(
          Comparator.comparing((Decided d) -> d.event.time())
              .thenComparingInt(d -> d.event.partition())
              .thenComparingLong(d -> d.event.offset()));
      if (spec.lateUpdatesState()) {
        applied.add(new Applied(e, true));
      }
      List<String> ids = new ArrayList<>();
      affected.forEach(d -> ids.add(d.latestId));
      DecisionsSpec.LateAction action = spec.lateAction();
      String reason = null;
      List<Answer> revisions = new ArrayList<>();
      if (action == DecisionsSpec.LateAction.REVISE) {
        for (Decided d : affected) {
          Answer answer = revisionOf(d, e);
          if (answer.refusal() != null) {
            action = DecisionsSpec.LateAction.RECONCILE; // it revises none (ADR 0084)
            reason =
                "its revision of the decision of event "
                    + named(d.event)
                    + " cannot be made: "
                    + answer.refusal()
                    + ", so it revises nothing; "
                    + answer.fix();
            break;
          }
          revisions.add(answer);
        }
      }
      String route =
          switch (action) {
            case IGNORE -> "ignored";
            case RECONCILE -> "reconciled";
            case REVISE -> "revising";
          };
      Map<String, String> identity = new TreeMap<>();
      identity.put("arrival_watermark", MILLIS.format(a));
      identity.put("updated_state", String.valueOf(spec.lateUpdatesState()));
      identity.put("affected_decisions", String.join(",", ids));
      if (reason != null) {
        identity.put("reason", reason);
      }
      rows.add(
          new Placed(
              e.item(),
              new FixtureOutcome.Routed(
                  route, e.id(), columns(e.record()), Map.of(), null, 0, 0, identity)));
      if (action != DecisionsSpec.LateAction.REVISE) {
        return;
      }
      for (int i = 0; i < affected.size(); i++) {
        Decided d = affected.get(i);
        d.revision++;
        d.latestId = decision(d.event, revisions.get(i), a, a, d.revision, d.latestId, named(e));
      }
    }

    /**
     * What a revision of {@code d}'s decision reads and gives: the state as applied so far over
     * {@code (s - range, s]}, with the late event {@code late}, kept in state or not.
     */
    private Answer revisionOf(Decided d, Event late) {
      long s = d.event.time().toEpochMilli();
      List<Map<String, Object>> read = new ArrayList<>();
      boolean withLate = false;
      for (Applied x : applied) {
        long u = x.event().time().toEpochMilli();
        if (afterRangeStart(u, s) && u <= s && !x.event().id().equals(d.event.id())) {
          read.add(x.event().record());
          withLate |= x.event().id().equals(late.id());
        }
      }
      if (!withLate) {
        read.add(late.record()); // a revision reads the late event, kept in state or not
      }
      return answer(d.event, read, d.event.time().minusMillis(range), d.event.time());
    }

    /**
     * The features {@code e}'s decision reads from {@code read} (its key's events in {@code (from,
     * to]}, {@code to} null: up to now), the inputs and the score; or why it cannot be made: the
     * first feature in select order that is not a finite double, else the score (ADR 0084).
     */
    private Answer answer(Event e, List<Map<String, Object>> read, Instant from, Instant to) {
      Map<String, Object> aggregates = query.featureRow(read); // doubles: int64 sums never refuse
      for (Map.Entry<String, Object> f : aggregates.entrySet()) {
        if (f.getValue() instanceof Double && !Double.isFinite((Double) f.getValue())) {
          String argument = query.argumentOf(f.getKey());
          String column = argument == null ? "its inputs" : "`" + argument + "`";
          if (((Double) f.getValue()).isNaN()) {
            // a sum of numbers is NaN only when one of them is (infinities are refused on input)
            return Answer.refused(
                "feature `"
                    + f.getKey()
                    + "` is NaN, not a number: an event of its key in ("
                    + MILLIS.format(from)
                    + ", "
                    + (to == null ? "now" : MILLIS.format(to))
                    + "] has NaN in "
                    + column,
                "a NaN holds every sum of "
                    + column
                    + " at NaN while its event is in the range; send numbers in "
                    + column);
          }
          return Answer.refused(
              "feature `"
                  + f.getKey()
                  + "` is "
                  + notFinite((Double) f.getValue())
                  + ": the double sum of "
                  + column
                  + " over its key's events in ("
                  + MILLIS.format(from)
                  + ", "
                  + (to == null ? "now" : MILLIS.format(to))
                  + "] overflows",
              "rescale " + column + " (a larger unit) so that its sums fit");
        }
      }
      Map<String, Object> features = new TreeMap<>();
      Map<String, BigDecimal> inputs = new LinkedHashMap<>();
      aggregates.forEach(
          (name, v) -> {
            BigDecimal x = v == null ? BigDecimal.ZERO : decimal(v);
            features.put(name, x.doubleValue());
            inputs.put(name, x);
          });
      Set<String> nan = new HashSet<>();
      for (Map.Entry<String, ColumnType> c : source.schema().entrySet()) {
        ColumnType.Kind kind = c.getValue().kind();
        Object v = e.record().get(c.getKey());
        if (v instanceof Double && ((Double) v).isNaN()) {
          // no decimal holds NaN: it stands in the inputs as zero, named in nan (a feature wins)
          if (!inputs.containsKey(c.getKey())) {
            inputs.put(c.getKey(), BigDecimal.ZERO);
            nan.add(c.getKey());
          }
        } else if (v != null
            && (kind == ColumnType.Kind.INT64
                || kind == ColumnType.Kind.DOUBLE
                || kind == ColumnType.Kind.DECIMAL)) {
          inputs.putIfAbsent(c.getKey(), decimal(v));
        }
      }
      double score = ScoringOracle.this.score.of(inputs, nan);
      if (Double.isNaN(score)) {
        return Answer.refused(
            dev.streamform.transforms.decisions.NonFiniteScore.NAN,
            dev.streamform.transforms.decisions.NonFiniteScore.NAN_FIX);
      }
      if (!Double.isFinite(score)) {
        return Answer.refused(
            "the score is " + notFinite(score) + ", from finite features",
            "rescale the model's weights or its inputs so that the score fits");
      }
      return new Answer(features, score, null, null);
    }

    /** Routes one decision of {@code e}, which gives {@code answer}; returns its id. */
    private String decision(
        Event e,
        Answer answer,
        Instant cutoff,
        Instant scoredAt,
        int revision,
        String supersedes,
        String revisedBy) {
      String contract = spec.contract().name().toLowerCase(Locale.ROOT);
      long stateRevision = applied.size();
      List<Object> hashed = new ArrayList<>();
      hashed.add("decision");
      hashed.add(modelName);
      hashed.add(named(e));
      hashed.add((long) e.partition());
      hashed.add(e.offset());
      hashed.add(e.time());
      hashed.add(contract);
      hashed.add(cutoff);
      hashed.add(stateRevision);
      hashed.add(score.digest());
      hashed.add(PREPROCESSING_DIGEST);
      hashed.add((long) generation);
      hashed.add((long) revision);
      hashed.add(supersedes);
      String id = RevisionIdentity.hash(hashed);
      Map<String, String> identity = new TreeMap<>();
      identity.put("decision_id", id);
      identity.put("route", revision == 1 ? "scored" : "revised");
      identity.put("event_id", named(e));
      identity.put("partition", String.valueOf(e.partition()));
      identity.put("offset", String.valueOf(e.offset()));
      identity.put("occurred_at", MILLIS.format(e.time()));
      identity.put("arrived_at", MILLIS.format(arrivedAt(e)));
      identity.put(
          "arrival_watermark",
          e.arrivalWatermark() == null ? null : MILLIS.format(e.arrivalWatermark()));
      identity.put("scored_at", MILLIS.format(scoredAt));
      identity.put("contract", contract);
      identity.put("state_cutoff", MILLIS.format(cutoff));
      identity.put("state_revision", String.valueOf(stateRevision));
      identity.put("model_digest", score.digest());
      identity.put("preprocessing_digest", PREPROCESSING_DIGEST);
      identity.put("policy_generation", String.valueOf(generation));
      identity.put("revision", String.valueOf(revision));
      identity.put("supersedes", supersedes);
      identity.put("revised_by", revisedBy);
      rows.add(
          new Placed(
              e.item(),
              new FixtureOutcome.Routed(
                  revision == 1 ? "scored" : "revised",
                  e.id(),
                  columns(e.record()),
                  new LinkedHashMap<>(answer.features()),
                  answer.score(),
                  revision,
                  stateRevision,
                  identity)));
      return id;
    }
  }

  /**
   * A decision's features (by name) and score, or why it cannot be made: {@code refusal} says what
   * is not finite, {@code fix} what to change (ADR 0084).
   */
  private record Answer(Map<String, Object> features, double score, String refusal, String fix) {
    static Answer refused(String refusal, String fix) {
      return new Answer(Map.of(), Double.NaN, refusal, fix);
    }
  }

  /** A value that is not a finite double, as a refusal names it. */
  private static String notFinite(double v) {
    return Double.isNaN(v)
        ? "NaN, not a number"
        : v + ", outside the double range (about ±1.8e308)";
  }

  /** A clock-skew dead letter's identity, by name as a run's lines give it. */
  private static Map<String, String> skewIdentity(String description) {
    Map<String, String> identity = new TreeMap<>();
    identity.put("reason", "clock_skew");
    identity.put("description", description);
    return identity;
  }

  /**
   * True when {@code max_clock_skew} dead-letters the event for its clock: no value in the declared
   * {@code arrival}, or a time more than the bound ahead of its arrival (a fixture's ingest time is
   * the epoch).
   */
  private boolean impossibleClock(Map<String, Object> record, Instant t) {
    if (spec.maxClockSkew().isEmpty()) {
      return false;
    }
    Object arrival = spec.arrival().map(record::get).orElse(null);
    if (spec.arrival().isPresent() && arrival == null) {
      return true;
    }
    Instant at = arrival instanceof Instant ? (Instant) arrival : Instant.EPOCH;
    return t.toEpochMilli() - at.toEpochMilli() > spec.maxClockSkew().get().toMillis();
  }

  /** The arrival clock: the {@code arrival} column, or the fixture's ingest time (epoch 0). */
  private Instant arrivedAt(Event e) {
    if (spec.arrival().isPresent() && e.record().get(spec.arrival().get()) instanceof Instant) {
      return (Instant) e.record().get(spec.arrival().get());
    }
    return Instant.EPOCH;
  }

  /** The key as the state updates print it: the key columns' values, in declaration order. */
  private String keyText(Map<String, Object> record) {
    List<Object> values = new ArrayList<>();
    for (String k : keyColumns) {
      Object v = record.get(k);
      values.add(v instanceof Instant ? MILLIS.format((Instant) v) : v);
    }
    return String.valueOf(values);
  }

  /**
   * An input of the score as the model reads it: the shortest decimal of its double (docs:
   * output-formats, {@code score}), whatever the column's type — an int64 past 2^53 or a decimal of
   * more than 17 digits is the double nearest to it, as the model sees it.
   */
  private static BigDecimal decimal(Object v) {
    return new BigDecimal(Double.toString(((Number) v).doubleValue()));
  }
}

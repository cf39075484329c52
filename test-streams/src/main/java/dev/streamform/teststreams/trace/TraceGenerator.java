package dev.streamform.teststreams.trace;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnType;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Generates traces — fixture-shaped lists of given items — for any model's source schema, seeded
 * and reproducible: trace {@code i} of seed {@code s} is the same on every machine and in every
 * batch.
 *
 * <p>A trace mixes what breaks event-time pipelines: events in order, out of order within the
 * watermark delay, exactly on the watermark and one millisecond behind it, far beyond the delay;
 * bursts of events at one instant; a few hot keys repeated; watermark items ahead of the clock,
 * behind it and exactly on a key's retention edge; several partitions, each key living in one of
 * them; and now and then an event without its event time. For a scoring model with a clock-skew
 * bound, the arrival column is drawn around the event time, on and beyond the bound. For a source
 * with {@code event_id}, each event gets a new id, and now and then one of the last events comes
 * again, on its partition or (a third of the repeats, with several partitions) on another one, so
 * that the copy kept is not always the one delivered first — mostly as it was (a duplicate, or
 * late, or new past the horizon), sometimes with another value or time (a conflict), and now and
 * then one comes again once its partition's watermark item stands exactly on its id's horizon
 * ({@code duplicates_within} after its first event's time) or 1 ms short of it, with an event time
 * that is not late there (a new event at the edge, a conflict 1 ms before it). Values of other
 * columns are drawn small, sometimes null, and sometimes from the literals of the model's WHERE
 * clause, so that the clause both passes and filters. The generator keeps its own rough account of
 * each partition's watermark only to aim at edges; the oracle decides what the trace means.
 */
public final class TraceGenerator {
  /** Where generated time starts: an instant readable in fixtures. */
  static final Instant BASE = Instant.parse("2026-08-30T10:00:00Z");

  private static final Pattern STRING_LITERAL = Pattern.compile("'((?:[^']|'')*)'");
  private static final Pattern NUMBER_LITERAL =
      Pattern.compile("(?<![\\w.'])-?\\d+(?:\\.\\d+)?(?![\\w'])");

  private final String modelName;
  private final Map<String, ColumnType> schema;
  private final List<String> keyColumns;
  private final Optional<String> eventTime;
  private final long delay;
  private final Optional<Long> retention;

  /** A calendar window (docs/semantics.md §6.22): its real bounds come from the declaration. */
  private final Optional<dev.streamform.policies.declarations.WindowSpec> calendar;

  /**
   * For calendar windows, the zone's daylight-saving changes in 2026 (none for a zone without them)
   * and the ends of the windows holding them: traces start up to 36 hours before one, so their days
   * are 23 or 25 hours long and their weeks and months end in them.
   */
  private final List<Long> anchors = new ArrayList<>();

  /** A windowed model's window size, period and allowed lateness (millis); empty for upsert. */
  private final Optional<long[]> window;

  /**
   * A scoring model's feature range and lateness (millis); empty for other models. Its traces aim
   * at the range's start ({@code t - range}, outside the features) and the lateness edge.
   */
  private final Optional<long[]> scoring;

  /** A scoring model's arrival column and clock-skew bound (millis), when it declares both. */
  private final Optional<String> arrival;

  private final long maxSkew;

  /** The source's {@code event_id} column, when it declares one that the generator may fill. */
  private final Optional<String> idColumn;

  /** The source's {@code duplicates_within} (millis), with {@link #idColumn}. */
  private final Optional<Long> horizon;

  private final List<String> stringLiterals = new ArrayList<>();

  private final List<BigDecimal> numberLiterals = new ArrayList<>();

  private TraceGenerator(DeclaredModel model) {
    SourceDeclaration source = model.source();
    this.modelName = model.model().name();
    this.schema = source.schema();
    this.keyColumns = model.keyColumns();
    this.eventTime = source.eventTime();
    this.delay = source.watermark().toMillis();
    this.retention = model.model().retention().map(Duration::toMillis);
    this.window =
        model
            .model()
            .window()
            .map(
                w ->
                    new long[] {
                      w.size().toMillis(),
                      w.every().toMillis(),
                      model.model().allowedLateness().toMillis()
                    });
    this.scoring =
        model
            .model()
            .decisions()
            .map(d -> new long[] {d.featuresOver().toMillis(), d.lateness().toMillis()});
    this.arrival =
        model
            .model()
            .decisions()
            .filter(d -> d.maxClockSkew().isPresent())
            .flatMap(d -> d.arrival());
    this.maxSkew =
        model.model().decisions().flatMap(d -> d.maxClockSkew()).map(Duration::toMillis).orElse(0L);
    this.calendar = model.model().window().filter(w -> w.isCalendar());
    calendar.ifPresent(
        w -> {
          java.time.zone.ZoneRules rules = w.zoneOrUtc().getRules();
          Instant from = Instant.parse("2026-01-01T00:00:00Z");
          for (java.time.zone.ZoneOffsetTransition t = rules.nextTransition(from);
              t != null && t.getInstant().isBefore(Instant.parse("2027-01-01T00:00:00Z"));
              t = rules.nextTransition(t.getInstant())) {
            anchors.add(t.getInstant().toEpochMilli());
            // and the end of the window that holds the change: a week's or a month's edge too
            anchors.add(w.endOf(w.startsContaining(t.getInstant()).get(0)).toEpochMilli());
          }
        });
    model.query().where().ifPresent(w -> readLiterals(w.toSql()));
    // an id that is also a key or the event time keeps the values those give it
    this.idColumn =
        source
            .eventId()
            .filter(c -> !keyColumns.contains(c) && !eventTime.map(c::equals).orElse(false));
    this.horizon =
        idColumn.isPresent() && eventTime.isPresent()
            ? source.duplicatesWithin().map(Duration::toMillis)
            : Optional.empty();
  }

  public static TraceGenerator forModel(DeclaredModel model) {
    return new TraceGenerator(model);
  }

  /** Trace {@code index} of {@code seed}, named {@code trace-<index>}. */
  public Fixture generate(long seed, int index) {
    long mixed = new SplittableRandom(seed ^ (index * 0x9E3779B97F4A7C15L)).nextLong();
    return new Draw(mixed).trace("trace-" + index);
  }

  private void readLiterals(String sql) {
    Matcher s = STRING_LITERAL.matcher(sql);
    while (s.find()) {
      stringLiterals.add(s.group(1).replace("''", "'"));
    }
    Matcher n = NUMBER_LITERAL.matcher(STRING_LITERAL.matcher(sql).replaceAll("''"));
    while (n.find()) {
      BigDecimal d = new BigDecimal(n.group());
      numberLiterals.add(d);
      numberLiterals.add(d.add(BigDecimal.ONE));
      numberLiterals.add(d.subtract(BigDecimal.ONE));
    }
  }

  /** One trace's drawing: its random source, keys and per-partition time. */
  private final class Draw {
    private final Random random;

    /**
     * Whether a repeat goes to another partition: drawn apart from {@link #random}, so that a trace
     * without such a repeat is the one the same seed gave before there were any.
     */
    private final Random elsewhere;

    private final int partitions;
    private final List<Map<String, Object>> keys = new ArrayList<>();
    private final List<Integer> keyPartition = new ArrayList<>();
    private final Map<Integer, Long> maxTime = new HashMap<>();
    private final Map<Integer, Long> watermark = new HashMap<>();
    private final Map<Integer, Long> latest = new HashMap<>(); // by key index

    /** The events given so far, for repeats: {partition, key index, values}. */
    private final List<Object[]> given = new ArrayList<>();

    /** Per id, the time of the event that holds it (the rough account of its first event). */
    private final Map<Object, Long> firstSeen = new HashMap<>();

    private int ids;
    private final long scale;

    /** Where this trace's time starts. */
    private final long base;

    Draw(long seed) {
      this.random = new Random(seed);
      this.elsewhere = new Random(~seed);
      this.base =
          anchors.isEmpty()
              ? BASE.toEpochMilli()
              : anchors.get(random.nextInt(anchors.size())) - random.nextInt(36 * 3600) * 1000L;
      this.partitions = 1 + random.nextInt(3);
      long unit = Math.max(delay, Duration.ofMinutes(1).toMillis());
      long span =
          window
              .map(w -> Math.min(w[0], w[0] / 2 + w[2] / 4))
              .orElse(retention.or(() -> scoring.map(d -> d[0])).map(r -> r / 4).orElse(0L));
      this.scale = span > 0 ? Math.max(unit / 2, Math.min(span, unit * 4)) : unit / 2;
      int count = partitions + random.nextInt(3 * partitions + 4);
      if (keyColumns.stream().allMatch(k -> schema.get(k).kind() == ColumnType.Kind.BOOL)) {
        count = Math.min(count, 1 << keyColumns.size());
      }
      for (int i = 0; i < count; i++) {
        keys.add(keyValues(i));
        keyPartition.add(i % partitions);
      }
    }

    Fixture trace(String name) {
      Fixture.Builder b = Fixture.builder(name, modelName);
      int events = 3 + random.nextInt(random.nextInt(5) == 0 ? 25 : 10);
      int made = 0;
      while (made < events) {
        int r = random.nextInt(100);
        if (r < 10) {
          // processing time has no watermark: a fixture refuses the item (ADR 0091)
          if (eventTime.isPresent()) {
            watermarkItem(b);
          }
        } else if (r >= 88 && idColumn.isPresent() && !given.isEmpty()) {
          if (horizon.isEmpty() || random.nextInt(3) != 0 || !repeatAtHorizon(b)) {
            repeat(b);
          }
          made++;
        } else if (r < 18) {
          int burst = 2 + random.nextInt(5);
          int p = random.nextInt(partitions);
          long t = nextTime(p);
          for (int i = 0; i < burst; i++) {
            event(b, p, t + (random.nextBoolean() ? 0 : random.nextInt(3)));
          }
          made += burst;
        } else {
          int p = random.nextInt(partitions);
          event(b, p, nextTime(p));
          made++;
        }
      }
      return b.build();
    }

    /** An event time for partition {@code p}, aimed at one of the interesting places. */
    private long nextTime(int p) {
      Long max = maxTime.get(p);
      if (max == null) {
        return base + random.nextInt(10) * 1000L;
      }
      Long w = watermark.get(p);
      int r = random.nextInt(100);
      if (r < 55) {
        return max + pick(0, 1000, scale / 4, scale, 2 * scale, delay, 3 * scale);
      }
      if (r < 70) {
        return max - (delay == 0 ? 0 : (long) (random.nextDouble() * delay));
      }
      if (r < 82 && w != null) {
        return w - (random.nextBoolean() ? 0 : 1);
      }
      if (r < 92) {
        return max - delay - 1 - (long) (random.nextDouble() * (2 * delay + scale));
      }
      if (scoring.isPresent()) {
        return scoringEdge(p, max, w);
      }
      Optional<Long> edge = retentionEdge(p);
      // an event that moves the watermark exactly onto (or just short of) a key's retention edge,
      // or a window's end or end + allowed lateness
      return edge.map(e -> e + delay - (random.nextBoolean() ? 0 : 1)).orElse(max + scale);
    }

    private void event(Fixture.Builder b, int p, long t) {
      List<Integer> mine = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        if (keyPartition.get(i) == p) {
          mine.add(i);
        }
      }
      // a hot key: the partition's first key takes about a third of its events
      int k = random.nextInt(3) == 0 ? mine.get(0) : mine.get(random.nextInt(mine.size()));
      Map<String, Object> values = new LinkedHashMap<>();
      boolean missingTime = random.nextInt(40) == 0;
      for (Map.Entry<String, ColumnType> c : schema.entrySet()) {
        String column = c.getKey();
        Object v;
        if (eventTime.isPresent() && column.equals(eventTime.get())) {
          v = missingTime ? null : Instant.ofEpochMilli(t);
        } else if (arrival.isPresent() && column.equals(arrival.get()) && !missingTime) {
          v = arrivalOf(t);
        } else if (keys.get(k).containsKey(column)) {
          v = keys.get(k).get(column);
        } else {
          v = random.nextInt(10) == 0 ? null : value(c.getValue(), column);
        }
        if (v != null) {
          values.put(column, v);
        }
      }
      if (idColumn.isPresent()) {
        values.put(idColumn.get(), freshId(schema.get(idColumn.get())));
      }
      emit(b, p, k, values, missingTime ? null : t);
    }

    /**
     * A repeat of one of the last events given ({@code event_id}), on its partition as a producer's
     * retry would be, or now and then on another (a copy whose place in the log is elsewhere; its
     * key then has events on two partitions): mostly the same event again (a duplicate within the
     * horizon, or late, or a new event after it), sometimes the same id with another value or time
     * (a conflict, or a new event once the horizon has passed).
     */
    private void repeat(Fixture.Builder b) {
      Object[] earlier = given.get(given.size() - 1 - random.nextInt(Math.min(5, given.size())));
      int home = (Integer) earlier[0];
      // now and then a copy on another partition: the copy kept is log order's, not delivery's
      int p =
          partitions > 1 && elsewhere.nextInt(3) == 0
              ? (home + 1 + elsewhere.nextInt(partitions - 1)) % partitions
              : home;
      int k = (Integer) earlier[1];
      @SuppressWarnings("unchecked")
      Map<String, Object> values = new LinkedHashMap<>((Map<String, Object>) earlier[2]);
      if (random.nextInt(4) == 0) {
        List<String> others = new ArrayList<>();
        for (String c : schema.keySet()) {
          if (!c.equals(idColumn.get())
              && !keyColumns.contains(c)
              && !eventTime.map(c::equals).orElse(false)) {
            others.add(c);
          }
        }
        if (others.isEmpty() || random.nextInt(3) == 0) {
          eventTime.ifPresent(c -> values.put(c, Instant.ofEpochMilli(nextTime(p))));
        } else {
          String c = others.get(random.nextInt(others.size()));
          values.put(c, value(schema.get(c), c));
        }
      }
      Object t = eventTime.map(values::get).orElse(null);
      emit(b, p, k, values, t instanceof Instant ? ((Instant) t).toEpochMilli() : null);
    }

    /**
     * A repeat of one of the last events given, on its partition, once a watermark item there has
     * put {@code W_p} exactly on its id's horizon edge (first event time + {@code
     * duplicates_within}) or 1 ms short of it; its event time is {@code W_p} or a little later, so
     * the clock does not drop it as late. False (nothing given) when that partition's watermark has
     * passed the edge already.
     */
    private boolean repeatAtHorizon(Fixture.Builder b) {
      Object[] earlier = given.get(given.size() - 1 - random.nextInt(Math.min(5, given.size())));
      int p = (Integer) earlier[0];
      int k = (Integer) earlier[1];
      @SuppressWarnings("unchecked")
      Map<String, Object> values = new LinkedHashMap<>((Map<String, Object>) earlier[2]);
      Long first = firstSeen.get(values.get(idColumn.get()));
      Long w = watermark.get(p);
      if (first == null) {
        return false;
      }
      long at = first + horizon.get() - (random.nextBoolean() ? 0 : 1);
      if (w != null && w > at) {
        return false;
      }
      b.watermark(Optional.of(p), Instant.ofEpochMilli(at));
      watermark.put(p, at);
      long t = at + pick(0, 0, 1, 1000, scale);
      values.put(eventTime.get(), Instant.ofEpochMilli(t));
      emit(b, p, k, values, t);
      return true;
    }

    /** A new id, never given before in this trace. */
    private Object freshId(ColumnType type) {
      int n = ++ids;
      switch (type.kind()) {
        case INT64:
          return (long) n;
        case STRING:
          return "o" + n;
        case DECIMAL:
          return BigDecimal.valueOf(n).setScale(type.scale());
        case DOUBLE:
          return n + 0.25;
        case TIMESTAMP:
          return BASE.plus(Duration.ofSeconds(n));
        default:
          return value(type, ""); // a bool id: two ids at most, so repeats come by themselves
      }
    }

    /** Gives the event and keeps the generator's rough account of its partition's clock. */
    private void emit(Fixture.Builder b, int p, int k, Map<String, Object> values, Long t) {
      b.event(p, values);
      given.add(new Object[] {p, k, values});
      if (eventTime.isPresent() && t != null) {
        Long w = watermark.get(p);
        boolean late = w != null && t < w;
        if (!late) {
          latest.merge(k, t, Math::max);
          Object id = idColumn.map(values::get).orElse(null);
          Long first = id == null ? null : firstSeen.get(id);
          if (id != null && (first == null || (w != null && w >= first + horizon.orElse(0L)))) {
            firstSeen.put(id, t); // a new first event: none yet, or the horizon has passed
          }
        }
        maxTime.merge(p, t, Math::max);
        watermark.merge(p, t - delay, Math::max);
      }
    }

    private void watermarkItem(Fixture.Builder b) {
      boolean all = partitions == 1 ? random.nextBoolean() : random.nextInt(3) == 0;
      int p = random.nextInt(partitions);
      Long w = watermark.get(p);
      long base = w != null ? w : this.base;
      long at;
      int r = random.nextInt(100);
      if (r < 35) {
        at = base + pick(0, 1, scale / 2, scale, 3 * scale);
      } else if (r < 55) {
        at = base - pick(1, scale / 2, scale);
      } else {
        Optional<Long> edge = retentionEdge(p);
        at = edge.map(e -> e - (random.nextBoolean() ? 0 : 1)).orElse(base + scale);
      }
      b.watermark(all ? Optional.empty() : Optional.of(p), Instant.ofEpochMilli(at));
      for (int q = 0; q < partitions; q++) {
        if (all || q == p) {
          watermark.merge(q, at, Math::max);
        }
      }
    }

    /**
     * A scoring model's arrival clock for an event at {@code t}: mostly after it, sometimes exactly
     * on the skew bound or 1 ms beyond it (dead-lettered), now and then missing.
     */
    private Instant arrivalOf(long t) {
      int r = random.nextInt(20);
      if (r == 0) {
        return null;
      }
      if (r < 3) {
        return Instant.ofEpochMilli(t - maxSkew - (r == 1 ? 0 : 1));
      }
      return Instant.ofEpochMilli(t + random.nextInt(600) * 1000L);
    }

    /**
     * For a scoring model: an event exactly one range after a key's latest event (which is then
     * just outside its features), or one on its partition's lateness edge ({@code W_p = t +
     * lateness}: on time, ADR 0198) or a millisecond past it (late).
     */
    private long scoringEdge(int p, long max, Long w) {
      long[] d = scoring.get();
      if (w != null && random.nextBoolean()) {
        return w - d[1] - (random.nextBoolean() ? 0 : 1);
      }
      List<Long> times = new ArrayList<>();
      latest.forEach(
          (k, t) -> {
            if (keyPartition.get(k) == p) {
              times.add(t);
            }
          });
      return times.isEmpty() ? max + d[0] : times.get(random.nextInt(times.size())) + d[0];
    }

    /**
     * For an upsert model, {@code latest(k) + retention} for a random key of partition {@code p}
     * that has state; for a windowed model, the end or the end + allowed lateness of a window of
     * such a key's latest event.
     */
    private Optional<Long> retentionEdge(int p) {
      if (window.isPresent()) {
        long[] w = window.get();
        List<Long> edges = new ArrayList<>();
        latest.forEach(
            (k, t) -> {
              if (keyPartition.get(k) == p) {
                long end =
                    calendar
                        .map(
                            c ->
                                c.endOf(c.startsContaining(Instant.ofEpochMilli(t)).get(0))
                                    .toEpochMilli())
                        .orElse(t - Math.floorMod(t, w[1]) + w[0]);
                edges.add(end);
                edges.add(end + w[2]);
              }
            });
        return edges.isEmpty()
            ? Optional.empty()
            : Optional.of(edges.get(random.nextInt(edges.size())));
      }
      if (retention.isEmpty()) {
        return Optional.empty();
      }
      List<Long> edges = new ArrayList<>();
      latest.forEach(
          (k, t) -> {
            if (keyPartition.get(k) == p) {
              edges.add(t + retention.get());
            }
          });
      return edges.isEmpty()
          ? Optional.empty()
          : Optional.of(edges.get(random.nextInt(edges.size())));
    }

    private long pick(long... choices) {
      return choices[random.nextInt(choices.length)];
    }

    /** The key columns' values of key {@code i}: distinct for every {@code i}. */
    private Map<String, Object> keyValues(int i) {
      Map<String, Object> values = new LinkedHashMap<>();
      for (int c = 0; c < keyColumns.size(); c++) {
        String column = keyColumns.get(c);
        if (eventTime.isPresent() && column.equals(eventTime.get())) {
          continue; // keyed by event time: every instant is its own key
        }
        ColumnType type = schema.get(column);
        // the first column spells the key's number; bools spell it in binary across columns
        values.put(
            column,
            c == 0 || type.kind() == ColumnType.Kind.BOOL ? nth(type, i, c) : value(type, column));
      }
      return values;
    }

    private Object nth(ColumnType type, int i, int column) {
      switch (type.kind()) {
        case INT64:
          return (long) (i + 1);
        case STRING:
          return i < stringLiterals.size() ? stringLiterals.get(i) : "k" + (i + 1);
        case DECIMAL:
          return BigDecimal.valueOf(i + 1).setScale(type.scale());
        case DOUBLE:
          return i + 0.5;
        case BOOL:
          return ((i >> column) & 1) == 1;
        case TIMESTAMP:
          return BASE.plus(Duration.ofHours(i));
        default:
          throw new AssertionError(type);
      }
    }

    /** A small random value of {@code type}, sometimes one of the WHERE clause's literals. */
    private Object value(ColumnType type, String column) {
      boolean literal = random.nextInt(3) == 0;
      switch (type.kind()) {
        case INT64:
          if (literal) {
            // a whole literal within int64 (a literal's neighbours, Long.MAX_VALUE + 1, are not);
            // one near the edge for a summed column makes sums that would overflow, which both
            // the pipeline and the oracle quarantine (ADR 0074)
            BigDecimal edge = BigDecimal.valueOf(Long.MAX_VALUE);
            for (BigDecimal d : shuffledNumbers()) {
              if (d.stripTrailingZeros().scale() <= 0 && d.abs().compareTo(edge) <= 0) {
                return d.longValueExact();
              }
            }
          }
          return (long) (random.nextInt(60) - 5);
        case DOUBLE:
          if (literal && !numberLiterals.isEmpty()) {
            return shuffledNumbers().get(0).doubleValue();
          }
          return random.nextBoolean()
              ? (random.nextInt(400) - 40) / 4.0
              : (random.nextInt(100)) / 10.0;
        case DECIMAL:
          if (literal) {
            for (BigDecimal d : shuffledNumbers()) {
              if (d.stripTrailingZeros().scale() <= type.scale()
                  && d.setScale(type.scale()).precision() <= type.precision()) {
                return d.setScale(type.scale());
              }
            }
          }
          long bound = (long) Math.pow(10, Math.min(type.precision(), type.scale() + 3));
          return BigDecimal.valueOf(random.nextLong() % bound, type.scale());
        case STRING:
          if (literal && !stringLiterals.isEmpty()) {
            return stringLiterals.get(random.nextInt(stringLiterals.size()));
          }
          return String.valueOf((char) ('a' + random.nextInt(4)));
        case BOOL:
          return random.nextBoolean();
        case TIMESTAMP:
          return BASE.plus(Duration.ofMinutes(random.nextInt(600)));
        default:
          throw new AssertionError(type);
      }
    }

    private List<BigDecimal> shuffledNumbers() {
      List<BigDecimal> all = new ArrayList<>(numberLiterals);
      java.util.Collections.shuffle(all, random);
      return all;
    }
  }
}

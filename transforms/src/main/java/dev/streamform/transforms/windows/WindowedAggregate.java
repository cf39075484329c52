package dev.streamform.transforms.windows;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.core.time.Durations;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.transforms.BadRecordCoder;
import dev.streamform.transforms.PlantedDefect;
import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.Accumulators;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.OutputColumns;
import dev.streamform.transforms.clock.BadEvents;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.KeyedEngine;
import dev.streamform.transforms.clock.LogOrder;
import dev.streamform.transforms.clock.StageTimers;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerMap;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.transforms.windowing.CalendarWindows;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Event-time windows whose results are revisable objects (docs/semantics.md §6): per key and
 * window, early previews, revision 1 at the watermark, one accumulating revision per correction,
 * and a final record at {@code window_end + allowed_lateness}, after which the window's state is
 * freed.
 *
 * <pre>{@code
 * WindowedResult hourly = clocked.events().apply(
 *     WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
 *         .forModel("hourly_revenue")
 *         .by("merchant_id")
 *         .aggregating(Aggregation.sum("amount").as("revenue"))
 *         .withAllowedLateness(Duration.standardHours(24)));
 * hourly.revisions();  // PCollection<WindowRevision>: early | on_time | corrected | final
 * hourly.tooLate();    // PCollection<TooLateEvent>: one per window that refused an event
 * }</pre>
 *
 * <p><b>Judging</b> is per window against the event's own partition's watermark at its arrival,
 * {@code W_p} ({@link TimedEvent#watermarkAtArrival()}): on time iff {@code W_p} is undefined or
 * {@code W_p < end}; a correction iff {@code end <= W_p < end + allowed_lateness}; too late
 * otherwise. It depends only on the partition's log. Read the events of a clock in event time with
 * late events <em>kept</em> ({@code SourceClock.forBoundedOutOfOrderness(..)
 * .keepingLateEvents()}): for a windowed model the window decides. This transform cannot see how
 * the clock was built (docs/decisions/0110), so it does not refuse another: after a clock that
 * drops late events (the clock's default) a late event goes only to the clock's {@code late()} and
 * no window sees it — no correction, no too-late row; after {@code SourceClock.inArrivalOrder()} no
 * event has a watermark at its arrival, so every event is on time.
 *
 * <p><b>Firing</b> follows the source watermark {@code W = min_p W_p}, which the clock's holds make
 * the runner watermark: revision 1 (the aggregate of the on-time events) once {@code W >= end},
 * then corrections in log order, each a new revision with the values of every event accepted so
 * far; the final record once {@code W >= end + allowed_lateness}. The runner decides only
 * <em>when</em> these come: events are applied in log order ({@link LogOrder}) and window edges
 * between them in watermark order, so the same per-partition logs give the same records on every
 * runner and parallelism. Declare the source's partitions on the clock ({@code withPartitions}) so
 * the watermark cannot pass a partition that has not delivered yet; an on-time event that still
 * reaches its window after revision 1 (a clock without declared partitions whose first item came
 * late) is applied as a correction and counted ({@code on_time_after_revision}), never dropped.
 */
@AutoValue
public abstract class WindowedAggregate
    extends PTransform<PCollection<TimedEvent>, WindowedResult> {

  public abstract long sizeMillis();

  public abstract long everyMillis();

  public abstract long offsetMillis();

  /**
   * Calendar windows (local days, weeks, months in a zone), or null for fixed and sliding ones;
   * when set, {@link #sizeMillis()} and {@link #everyMillis()} are only nominal.
   */
  public abstract @Nullable CalendarWindow calendar();

  public abstract String model();

  public abstract List<String> keyColumns();

  /** Output names of key columns the query renames (source column -> output name). */
  public abstract Map<String, String> keyNames();

  public abstract List<Aggregation> aggregations();

  public abstract Duration allowedLateness();

  /** A preview after every N-th on-time event of a key's window; 0 = none. */
  public abstract int earlyEveryEvents();

  /** A preview of every changed open window this often, in processing time; null = none. */
  public abstract @Nullable Duration earlyEveryInterval();

  public abstract int generation();

  /** Where events no window can apply go; null: such an event fails the pipeline. */
  public abstract @Nullable ErrorHandler<BadRecord, ?> badRecordErrorHandler();

  /** Whether events are applied as they arrive where they can be ({@link #appliedOnArrival()}). */
  public abstract boolean arrivalOrder();

  /** The records' schema given by {@link #withRecordSchema}; null: read from the input's coder. */
  public abstract @Nullable Schema recordSchema();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setSizeMillis(long size);

    abstract Builder setEveryMillis(long every);

    abstract Builder setOffsetMillis(long offset);

    abstract Builder setCalendar(@Nullable CalendarWindow calendar);

    abstract Builder setModel(String model);

    abstract Builder setKeyColumns(List<String> keys);

    abstract Builder setKeyNames(Map<String, String> names);

    abstract Builder setAggregations(List<Aggregation> aggregations);

    abstract Builder setAllowedLateness(Duration lateness);

    abstract Builder setEarlyEveryEvents(int n);

    abstract Builder setEarlyEveryInterval(@Nullable Duration interval);

    abstract Builder setGeneration(int generation);

    abstract Builder setBadRecordErrorHandler(@Nullable ErrorHandler<BadRecord, ?> handler);

    abstract Builder setArrivalOrder(boolean arrivalOrder);

    abstract Builder setRecordSchema(@Nullable Schema schema);

    abstract WindowedAggregate build();
  }

  /** Tumbling windows: Beam's {@link FixedWindows}, with their size and offset. */
  public static WindowedAggregate of(FixedWindows windows) {
    checkArgument(windows != null, "WindowedAggregate.of: windows must not be null");
    long size = windows.getSize().getMillis();
    return sized(size, size, windows.getOffset().getMillis());
  }

  /**
   * Hopping windows: Beam's {@link SlidingWindows}, with their size, period and offset. A period
   * longer than the size is refused: an event between two windows would belong to none.
   */
  public static WindowedAggregate of(SlidingWindows windows) {
    checkArgument(windows != null, "WindowedAggregate.of: windows must not be null");
    long size = windows.getSize().getMillis();
    long every = windows.getPeriod().getMillis();
    // as check refuses `every` longer than `size` in a declaration: an event in a gap would be in
    // no window, and nothing could say why it was dropped
    checkArgument(
        every <= size,
        "WindowedAggregate.of(SlidingWindows): every (%s) is longer than the window's size (%s):"
            + " events between windows would belong to none; give a period no longer than the"
            + " size, e.g. SlidingWindows.of(size).every(period) with period <= size, or"
            + " FixedWindows.of(size)",
        Durations.format(java.time.Duration.ofMillis(every)),
        Durations.format(java.time.Duration.ofMillis(size)));
    return sized(size, every, windows.getOffset().getMillis());
  }

  /**
   * Windows of a {@link WindowFn} known only at run time: fixed, sliding or calendar windows.
   *
   * @deprecated pass the windows with their own type — {@link #of(FixedWindows)}, {@link
   *     #of(SlidingWindows)}, {@link #of(CalendarWindows.DaysWindows)}, {@link
   *     #of(CalendarWindows.MonthsWindows)} — so the compiler, not a run, refuses other windows.
   */
  @Deprecated
  public static WindowedAggregate of(WindowFn<?, ?> windows) {
    if (windows instanceof CalendarWindows.DaysWindows days) {
      return of(days);
    } else if (windows instanceof CalendarWindows.MonthsWindows months) {
      return of(months);
    } else if (windows instanceof FixedWindows fixed) {
      return of(fixed);
    } else if (windows instanceof SlidingWindows sliding) {
      return of(sliding);
    }
    throw new IllegalArgumentException(
        "WindowedAggregate.of: windows must be FixedWindows, SlidingWindows or CalendarWindows,"
            + " got "
            + (windows == null ? "null" : windows.getClass().getName()));
  }

  private static WindowedAggregate sized(long size, long every, long offset) {
    checkArgument(
        size > 0 && every > 0, "WindowedAggregate.of: window size and period must be positive");
    return create(size, every, offset, null);
  }

  /**
   * Local days ({@code CalendarWindows.days(1)}) or weeks ({@code CalendarWindows.weeks(1,
   * DateTimeConstants.MONDAY)}, Beam's seven-day {@code DaysWindows}) in the windows' time zone
   * (docs/semantics.md §6.22). Other counts of days are refused: a declaration has no name for
   * them.
   */
  public static WindowedAggregate of(CalendarWindows.DaysWindows windows) {
    java.time.ZoneId zone =
        zoneOf(
            windows.getTimeZone(),
            windows.getNumber() == 7
                ? "WindowedAggregate.of(CalendarWindows.weeks(1, ...))"
                : "WindowedAggregate.of(CalendarWindows.days(" + windows.getNumber() + "))");
    if (windows.getNumber() == 1) {
      return of(CalendarWindow.days(zone));
    }
    java.time.DayOfWeek first = java.time.DayOfWeek.of(windows.getStartDate().getDayOfWeek());
    int days = windows.getNumber();
    if (days == 7) {
      return of(CalendarWindow.weeks(zone, first));
    }
    if (days % 7 == 0) {
      // Beam's weeks(n, day) is days(7n) from a date on that day; days(7n) starts on Thursday
      // 1970-01-01, so it reads as weeks(n, THURSDAY) too
      boolean fromTheEpoch = windows.getStartDate().equals(CalendarWindows.days(1).getStartDate());
      throw new IllegalArgumentException(
          String.format(
              "WindowedAggregate.of: CalendarWindows.%s is %d weeks; a calendar window is one day,"
                  + " one week or one month (a declaration has no name for more), so use"
                  + " CalendarWindows.weeks(1, %s)",
              fromTheEpoch
                  ? "days(" + days + ") (or weeks(" + days / 7 + ", " + first + "))"
                  : "weeks(" + days / 7 + ", " + first + ")",
              days / 7,
              first));
    }
    throw new IllegalArgumentException(
        String.format(
            "WindowedAggregate.of: CalendarWindows.days(%d) is %d days; a calendar window is one"
                + " day, one week or one month (a declaration has no name for more), so use"
                + " CalendarWindows.days(1), or weeks(1, <first day>) for weeks",
            days, days));
  }

  /** Local months ({@code CalendarWindows.months(1)}) in the windows' time zone. */
  public static WindowedAggregate of(CalendarWindows.MonthsWindows windows) {
    checkArgument(
        windows.getNumber() == 1 && windows.getDayOfMonth() == 1,
        "WindowedAggregate.of: only CalendarWindows.months(1) from the 1st is supported, got"
            + " months(%s) beginning on day %s",
        windows.getNumber(),
        windows.getDayOfMonth());
    return of(
        CalendarWindow.months(
            zoneOf(windows.getTimeZone(), "WindowedAggregate.of(CalendarWindows.months(1))")));
  }

  /**
   * The java.time zone of Beam's (Joda) {@code zone}, refused as {@link CalendarWindow#zoneName}
   * refuses a fixed offset, the message beginning with {@code call}. Joda names an alias by its
   * main zone ({@code US/Eastern} is {@code America/New_York}), so that is the name the windows'
   * identity hashes (docs/decisions/0175).
   */
  private static java.time.ZoneId zoneOf(org.joda.time.DateTimeZone zone, String call) {
    java.time.ZoneId id = java.time.ZoneId.of(zone.getID());
    CalendarWindow.zoneName(id, call);
    return id;
  }

  /** Calendar windows computed with java.time's zone rules (docs/semantics.md §6.22 to §6.24). */
  public static WindowedAggregate of(CalendarWindow windows) {
    checkArgument(windows != null, "WindowedAggregate.of: windows must not be null");
    long nominal =
        windows.unit() == CalendarWindow.Unit.DAY
            ? 86_400_000L
            : windows.unit() == CalendarWindow.Unit.WEEK ? 7 * 86_400_000L : 31 * 86_400_000L;
    return create(nominal, nominal, 0, windows);
  }

  private static WindowedAggregate create(
      long size, long every, long offset, @Nullable CalendarWindow calendar) {
    return new AutoValue_WindowedAggregate.Builder()
        .setSizeMillis(size)
        .setEveryMillis(every)
        .setOffsetMillis(offset)
        .setCalendar(calendar)
        .setModel("windowed")
        .setKeyColumns(List.of())
        .setKeyNames(Map.of())
        .setAggregations(List.of())
        .setAllowedLateness(Duration.ZERO)
        .setEarlyEveryEvents(0)
        .setEarlyEveryInterval(null)
        .setGeneration(1)
        .setBadRecordErrorHandler(null)
        .setArrivalOrder(false)
        .setRecordSchema(null)
        .build();
  }

  /** The model name in the revisions' identity ({@code logical_window_id}). */
  public WindowedAggregate forModel(String model) {
    checkArgument(
        model != null && !model.isBlank(),
        "WindowedAggregate.forModel: the model name must not be empty");
    return toBuilder().setModel(model).build();
  }

  /**
   * Keyed by {@code keyColumns} of the records, in place of any key given before.
   *
   * @throws IllegalArgumentException if no key column is given, one is null or blank, or one is
   *     named twice
   */
  public WindowedAggregate by(String... keyColumns) {
    return by(keyColumns == null ? null : Arrays.asList(keyColumns));
  }

  /** See {@link #by(String...)}. */
  public WindowedAggregate by(List<String> keyColumns) {
    List<String> keys =
        OutputColumns.keyColumns("WindowedAggregate.by", "a windowed aggregate", keyColumns);
    for (Map.Entry<String, String> named : keyNames().entrySet()) {
      checkArgument(
          keys.contains(named.getKey()),
          "WindowedAggregate.by(%s): withKeyName(\"%s\", \"%s\") names `%s`, which is not one of"
              + " these key columns; key by it too, or leave its withKeyName out",
          keys,
          named.getKey(),
          named.getValue(),
          named.getKey());
    }
    return toBuilder().setKeyColumns(keys).build();
  }

  /**
   * Names key column {@code column} {@code name} in the output (a query's {@code column AS name}).
   */
  public WindowedAggregate withKeyName(String column, String name) {
    String call = "WindowedAggregate.withKeyName(" + quoted(column) + ", " + quoted(name) + ")";
    checkArgument(
        column != null && !column.isBlank() && name != null && !name.isBlank(),
        "%s: give a key column and the name it takes in the output, e.g."
            + " withKeyName(\"store_id\", \"store\")",
        call);
    checkArgument(
        keyColumns().isEmpty() || keyColumns().contains(column),
        "%s: `%s` is not one of its key columns (%s); name one of them, or give the key with"
            + " .by(..) first",
        call,
        column,
        String.join(", ", keyColumns()));
    Map<String, String> names = new LinkedHashMap<>(keyNames());
    names.put(column, name);
    return toBuilder().setKeyNames(Map.copyOf(names)).build();
  }

  private static String quoted(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }

  /**
   * This aggregate with {@code aggregations} added, in output order.
   *
   * @throws IllegalArgumentException if an aggregate is null, two aggregates share an output name,
   *     or an aggregate is named {@code window_start} or {@code window_end} (every output column
   *     needs its own name). An aggregate named like a key column is refused when the transform is
   *     applied: {@link #withKeyName} may still give the key another name.
   */
  public WindowedAggregate aggregating(Aggregation... aggregations) {
    return aggregating(aggregations == null ? null : Arrays.asList(aggregations));
  }

  /** See {@link #aggregating(Aggregation...)}. */
  public WindowedAggregate aggregating(List<Aggregation> more) {
    return toBuilder()
        .setAggregations(
            OutputColumns.aggregates(
                describe() + ".aggregating", List.of(), WINDOW_COLUMNS, aggregations(), more))
        .build();
  }

  /** The columns every output row has besides its key and aggregates. */
  private static final List<String> WINDOW_COLUMNS = List.of("window_start", "window_end");

  /**
   * This transform as an author writes it, for messages: {@code WindowedAggregate.by("a")}, or
   * {@code WindowedAggregate} before its key is given.
   */
  private String describe() {
    return keyColumns().isEmpty()
        ? "WindowedAggregate"
        : "WindowedAggregate.by(" + OutputColumns.describe(keyColumns()) + ")";
  }

  /** Corrections are accepted until the watermark reaches {@code window_end + lateness}. */
  public WindowedAggregate withAllowedLateness(Duration lateness) {
    checkArgument(
        lateness != null && !lateness.isShorterThan(Duration.ZERO),
        "WindowedAggregate.withAllowedLateness: must be 0 or more, got %s",
        lateness);
    Times.checkAtMostMax("WindowedAggregate.withAllowedLateness", lateness);
    return toBuilder().setAllowedLateness(lateness).build();
  }

  /**
   * A preview ({@code early}, revision 0) after every {@code n}-th on-time event of a key's window.
   */
  public WindowedAggregate withEarlyResultsEvery(int n) {
    checkArgument(n > 0, "WindowedAggregate.withEarlyResultsEvery: N must be positive, got %s", n);
    return toBuilder().setEarlyEveryEvents(n).setEarlyEveryInterval(null).build();
  }

  /**
   * A preview of every open window whose on-time events changed, every {@code interval} of
   * processing time. Previews then depend on timing: they are not compared in fixtures.
   */
  public WindowedAggregate withEarlyResultsEvery(Duration interval) {
    checkArgument(
        interval != null && interval.isLongerThan(Duration.ZERO),
        "WindowedAggregate.withEarlyResultsEvery: the interval must be positive, got %s",
        interval);
    Times.checkAtMostMax("WindowedAggregate.withEarlyResultsEvery", interval);
    return toBuilder().setEarlyEveryInterval(interval).setEarlyEveryEvents(0).build();
  }

  /**
   * An event that its windows cannot apply — one whose value would take an int64 {@code SUM} (or
   * the sum behind an {@code AVG}) of a window that accepts it outside int64 — goes to {@code
   * handler} (Beam's bad-record convention: {@code pipeline.registerBadRecordErrorHandler(sink)})
   * with a reason naming the column, and is applied to none of its windows (nor listed as too late
   * by the ones that refuse it): a window's revisions never hold part of what happened. Without a
   * handler such an event fails the pipeline, naming its partition and offset.
   */
  public WindowedAggregate withBadRecordErrorHandler(ErrorHandler<BadRecord, ?> handler) {
    checkArgument(
        handler != null,
        "WindowedAggregate.withBadRecordErrorHandler(null): pass the handler that"
            + " pipeline.registerBadRecordErrorHandler(..) returned");
    return toBuilder().setBadRecordErrorHandler(handler).build();
  }

  /**
   * Applies an event as it reaches this stage when that gives what log order gives, instead of
   * buffering every event until the watermark passes its stamp: an event on time or too late in
   * each of its windows, or a correction of a window that already has its revision 1, arriving
   * while none of its key's events waits. A correction of a window still waiting for revision 1
   * waits for it as in log order, and so do the key's events after it. Correct only where the
   * runner keeps each key's order from the clock to this stage — the Flink runner does (one channel
   * per sender, first in first out), the DirectRunner does not. The default, log order ({@link
   * dev.streamform.transforms.clock.LogOrder}), is right on every runner.
   */
  public WindowedAggregate appliedOnArrival() {
    return toBuilder().setArrivalOrder(true).build();
  }

  /**
   * Declares the schema of the events' records, so the windows accept their input with any coder of
   * {@link TimedEvent} — for a step between the clock and the windows that does not keep the
   * clock's coder (a {@code MapElements}, which infers a {@code SerializableCoder}). The events are
   * re-encoded with the clock's coder for this schema from the first step on. When the input does
   * carry the clock's coder, its schema must be this one.
   *
   * @throws IllegalArgumentException if {@code recordSchema} is null
   */
  public WindowedAggregate withRecordSchema(Schema recordSchema) {
    checkArgument(
        recordSchema != null,
        "%s.withRecordSchema(null): give the schema of the records (the one"
            + " SourceRecordCoder.of(schema) encodes)",
        describe());
    return toBuilder().setRecordSchema(recordSchema).build();
  }

  /** The policy generation in {@code projection_id} (default 1). */
  public WindowedAggregate withGeneration(int generation) {
    checkArgument(
        generation > 0, "WindowedAggregate.withGeneration: must be positive, got %s", generation);
    return toBuilder().setGeneration(generation).build();
  }

  @Override
  public WindowedResult expand(PCollection<TimedEvent> input) {
    checkArgument(
        !keyColumns().isEmpty(),
        "WindowedAggregate: give its key columns, e.g. .by(\"customer_id\"), before applying it");
    checkArgument(
        !aggregations().isEmpty(),
        "%s: give its aggregates, e.g. .aggregating(Aggregation.sum(\"amount\").as(\"revenue\")),"
            + " before applying it",
        describe());
    ClockCoders.TimedEventCoder coder =
        ClockCoders.eventCoder(input, describe(), "the windows", recordSchema());
    Schema records = coder.envelopeCoder().recordSchema();
    Schema.Builder keySchema = Schema.builder();
    for (String k : keyColumns()) {
      checkArgument(
          records.hasField(k),
          "%s: key column `%s` is not a field of the records (fields: %s)",
          describe(),
          k,
          records.getFieldNames());
      keySchema.addField(records.getField(k).withName(keyNames().getOrDefault(k, k)));
    }
    Accumulators accumulators;
    try {
      accumulators = new Accumulators(records, aggregations());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(describe() + ": " + e.getMessage(), e);
    }
    Schema keys = keySchema.build();
    // against the keys' output names, withKeyName applied (the other checks were made when built)
    for (String name : accumulators.outputSchema().getFieldNames()) {
      checkArgument(
          !keys.hasField(name) && !WINDOW_COLUMNS.contains(name),
          "%s: aggregate `%s` is named like a key column (%s) or like window_start/window_end;"
              + " every output column needs its own name — rename it with .as(...)",
          describe(),
          name,
          keys.getFieldNames());
    }
    List<String> keyColumns = keyColumns();
    TupleTag<WindowRevision> revisions = new TupleTag<>("revisions") {};
    TupleTag<TooLateEvent> tooLate = new TupleTag<>("too_late") {};
    TupleTag<BadRecord> refused = new TupleTag<>("refused");
    PCollectionTuple out =
        KeyedEngine.byKey(input, "ByKey", keyColumns, coder)
            .apply(
                "Windows",
                ParDo.of(
                        new WindowFnImpl(
                            this,
                            StageTimers.of(input.getPipeline()),
                            keys,
                            accumulators,
                            coder,
                            revisions,
                            tooLate,
                            badRecordErrorHandler() == null ? null : refused,
                            PlantedDefect.current()))
                    .withOutputTags(revisions, TupleTagList.of(tooLate).and(refused)));
    PCollection<BadRecord> bad = out.get(refused).setCoder(BadRecordCoder.of());
    if (badRecordErrorHandler() != null) {
      badRecordErrorHandler().addErrorCollection(bad);
    }
    return new WindowedResult(
        input.getPipeline(),
        revisions,
        out.get(revisions)
            .setCoder(WindowCoders.WindowRevisionCoder.of(keys, accumulators.outputSchema())),
        tooLate,
        out.get(tooLate).setCoder(WindowCoders.TooLateEventCoder.of(coder.envelopeCoder())));
  }

  /**
   * A human description of the window, e.g. {@code tumbling 1h} or {@code hopping 1h every 15m}.
   */
  public String windowText() {
    if (calendar() != null) {
      return calendar().describe();
    }
    String size = Durations.format(java.time.Duration.ofMillis(sizeMillis()));
    long offset = Math.floorMod(offsetMillis(), everyMillis());
    return (everyMillis() == sizeMillis()
            ? "tumbling " + size
            : "hopping "
                + size
                + " every "
                + Durations.format(java.time.Duration.ofMillis(everyMillis())))
        // a Java author's FixedWindows/SlidingWindows offset: declarations have none
        + (offset == 0 ? "" : ", offset " + Durations.format(java.time.Duration.ofMillis(offset)));
  }

  /** A human description of the trigger. */
  public String triggerText() {
    String early =
        earlyEveryEvents() > 0
            ? "early every " + earlyEveryEvents() + " events; "
            : earlyEveryInterval() != null
                ? "early every " + Times.format(earlyEveryInterval()) + " (processing time); "
                : "";
    return early
        + "on time at the watermark; one revision per correction; final at end + allowed lateness";
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("model", model()).withLabel("Model"))
        .add(DisplayData.item("window", windowText()).withLabel("Window"))
        .add(
            DisplayData.item("allowedLateness", Times.format(allowedLateness()))
                .withLabel("Allowed lateness"))
        .add(DisplayData.item("trigger", triggerText()).withLabel("Trigger"))
        .add(DisplayData.item("key", String.join(", ", keyColumns())).withLabel("Key"))
        .add(
            DisplayData.item("aggregates", OutputColumns.display(aggregations()))
                .withLabel("Aggregates"))
        .add(DisplayData.item("generation", generation()).withLabel("Generation"));
    if (arrivalOrder()) {
      // only then: the plan manifest, built for the DirectRunner (log order), stays as it was
      builder.add(
          DisplayData.item("order", "as events arrive, where log order gives the same")
              .withLabel("Events applied in"));
    }
  }

  /** The starts (millis, ascending) of the windows that contain {@code t}. */
  static List<Long> windowStarts(long t, long size, long every, long offset) {
    long last = t - Math.floorMod(t - offset, every);
    List<Long> starts = new ArrayList<>();
    for (long s = last; s > t - size; s -= every) {
      starts.add(0, s);
    }
    return starts;
  }

  private static final class WindowFnImpl extends DoFn<KV<String, TimedEvent>, WindowRevision> {
    private final long size;
    private final long every;
    private final long offset;
    private final @Nullable CalendarWindow calendar;
    private final @Nullable String zoneId;
    private final long lateness;
    private final int earlyEvents;
    private final @Nullable Duration earlyInterval;
    private final String model;
    private final int generation;
    private final List<String> keyColumns;
    private final Schema keySchema;
    private final Accumulators accumulators;
    private final TupleTag<WindowRevision> revisions;
    private final TupleTag<TooLateEvent> tooLate;

    /** Where an event no window can apply goes; null: it fails the pipeline. */
    private final @Nullable TupleTag<BadRecord> refused;

    private final ClockCoders.TimedEventCoder eventCoder;
    private final Counter quarantined = StreamformMetrics.counter(StreamformMetrics.QUARANTINED);

    /** {@link PlantedDefect#NONE} but in a test that planted one (issue 29). */
    private final PlantedDefect planted;

    private final StreamformMetrics.BundleCounter processed =
        StreamformMetrics.perBundle(StreamformMetrics.PROCESSED);
    private final StreamformMetrics.BundleCounter revisionsEmitted =
        StreamformMetrics.perBundle(StreamformMetrics.REVISIONS);
    private final StreamformMetrics.BundleCounter finalized =
        StreamformMetrics.perBundle(StreamformMetrics.WINDOWS_FINALIZED);
    private final StreamformMetrics.BundleCounter live =
        StreamformMetrics.perBundle(StreamformMetrics.WINDOWS_LIVE);
    private final dev.streamform.transforms.StateBytes stateBytes =
        new dev.streamform.transforms.StateBytes();
    private final WindowState.ListCoder windowsCoder;
    private final Coder<Row> keyCoder;
    private final StreamformMetrics.BundleCounter lateRows =
        StreamformMetrics.perBundle(StreamformMetrics.WINDOW_LATE);
    private final StreamformMetrics.BundleCounter lateEvents =
        StreamformMetrics.perBundle(StreamformMetrics.LATE_DROPPED);
    private final StreamformMetrics.BundleCounter onTimeAfterRevision =
        StreamformMetrics.perBundle(StreamformMetrics.ON_TIME_AFTER_REVISION);

    @StateId("pending")
    private final StateSpec<BagState<TimestampedValue<TimedEvent>>> pendingSpec;

    @StateId("windows")
    private final StateSpec<ValueState<List<WindowState>>> windowsSpec;

    @StateId("key")
    private final StateSpec<ValueState<Row>> keySpec;

    /** The tick timer's time and its hold, in one cell (one state lookup instead of two). */
    @StateId("tickCell")
    private final StateSpec<ValueState<KV<Long, Long>>> tickCellSpec =
        StateSpecs.value(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()));

    @StateId("earlyArmed")
    private final StateSpec<ValueState<Boolean>> earlyArmedSpec =
        StateSpecs.value(BooleanCoder.of());

    /** Releases due events in log order and passes window edges in watermark order. */
    @TimerId("tick")
    private final TimerSpec tickSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    /** Processing-time previews ({@code early_results: every <duration>}). */
    @TimerId("early")
    private final TimerSpec earlySpec = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

    /** The tick, one per key, where the runner needs that ({@link StageTimers}). */
    @TimerFamily(StageTimers.FAMILY)
    private final TimerSpec perKeySpec = TimerSpecs.timerMap(TimeDomain.EVENT_TIME);

    private final StageTimers timers;

    /** Events applied as they arrive where log order gives the same ({@link #appliedOnArrival}). */
    private final boolean onArrival;

    WindowFnImpl(
        WindowedAggregate spec,
        StageTimers timers,
        Schema keySchema,
        Accumulators accumulators,
        ClockCoders.TimedEventCoder events,
        TupleTag<WindowRevision> revisions,
        TupleTag<TooLateEvent> tooLate,
        @Nullable TupleTag<BadRecord> refused,
        PlantedDefect planted) {
      this.timers = timers;
      this.onArrival = spec.arrivalOrder();
      this.planted = planted;
      this.refused = planted == PlantedDefect.OVERFLOW_FAILS_THE_RUN ? null : refused;
      this.eventCoder = events;
      this.size = spec.sizeMillis();
      this.every = spec.everyMillis();
      this.offset = spec.offsetMillis();
      this.calendar = spec.calendar();
      this.zoneId = calendar == null ? null : calendar.zoneId();
      this.lateness = spec.allowedLateness().getMillis();
      this.earlyEvents = spec.earlyEveryEvents();
      this.earlyInterval = spec.earlyEveryInterval();
      this.model = spec.model();
      this.generation = spec.generation();
      this.keyColumns = spec.keyColumns();
      this.keySchema = keySchema;
      this.accumulators = accumulators;
      this.revisions = revisions;
      this.tooLate = tooLate;
      this.pendingSpec = StateSpecs.bag(LogOrder.bufferCoder(events));
      this.windowsCoder = new WindowState.ListCoder(accumulators.stateSchema());
      this.keyCoder = RowCoders.of(keySchema);
      this.windowsSpec = StateSpecs.value(windowsCoder);
      this.keySpec = StateSpecs.value(keyCoder);
    }

    @ProcessElement
    public void process(
        @Element KV<String, TimedEvent> element,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("windows") ValueState<List<WindowState>> windowsState,
        @StateId("key") ValueState<Row> keyState,
        @StateId("tickCell") ValueState<KV<Long, Long>> tickCell,
        @StateId("earlyArmed") ValueState<Boolean> earlyArmed,
        @TimerId("tick") Timer declaredTick,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey,
        @TimerId("early") Timer early,
        MultiOutputReceiver out) {
      Timer tick = timers.get("tick", element.getKey(), declaredTick, perKey);
      TimedEvent value = element.getValue();
      KV<Long, Long> current = tickCell.read();
      if (onArrival) {
        List<WindowState> stored = windowsState.read();
        List<WindowState> windows = stored == null ? new ArrayList<>() : new ArrayList<>(stored);
        if (decidedOnArrival(value, windows) && pending.isEmpty().read()) {
          // The runner keeps each key's order between stages (see appliedOnArrival()) and nothing
          // of this key waits: applied now, it gives what its release in log order would.
          KeyWindows key = new KeyWindows(windows, keyState, out);
          key.apply(value);
          Long next = key.nextEdge(Long.MIN_VALUE);
          Long hold = key.hold();
          Long at = current == null ? null : current.getKey();
          Long held = current == null ? null : current.getValue();
          if (next != null
              && (at == null || next < at || (hold != null && (held == null || hold < held)))) {
            // the tick wakes for the key's first edge and holds before every window still
            // waiting for revision 1 (it is set again at each firing, KeyedEngine.fire)
            long[] set = KeyedEngine.setTick(tick, at == null ? next : Math.min(at, next), hold);
            tickCell.write(KV.of(set[0], set[1]));
          }
          keep(stored, key, false, windowsState, keyState, earlyArmed, early);
          return;
        }
      }
      // applied in log order once due (see KeyedEngine.buffer)
      long[] moved =
          KeyedEngine.buffer(
              value,
              pending,
              current == null ? null : current.getKey(),
              current == null ? null : current.getValue(),
              tick);
      if (moved != null) {
        tickCell.write(KV.of(moved[0], moved[1]));
      }
    }

    /**
     * Whether applying {@code event} as it arrives gives what its release in log order would: it is
     * on time or too late in each of its windows (judged by its partition's watermark at arrival,
     * whenever it is applied), or a correction of a window that has had its revision 1. A
     * correction of a window still waiting for revision 1 must follow it, so it waits in the
     * buffer.
     */
    private boolean decidedOnArrival(TimedEvent event, List<WindowState> windows) {
      Instant arrival = event.watermarkAtArrival();
      if (arrival == null) {
        return true; // W_p undefined: on time in every window
      }
      long a = arrival.getMillis();
      for (long[] window : windowsOf(event.envelope().eventTime().getMillis())) {
        if (a < window[1] || a >= tooLateFrom(window[1])) {
          continue; // on time, or too late
        }
        WindowState w = find(windows, window[0]);
        if (w == null || w.revision == 0) {
          return false;
        }
      }
      return true;
    }

    /** The key's tick where it is a member of the stage's timer family ({@link StageTimers}). */
    @OnTimerFamily(StageTimers.FAMILY)
    public void onPerKeyTick(
        OnTimerContext context,
        @TimerId String timerId,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("windows") ValueState<List<WindowState>> windowsState,
        @StateId("key") ValueState<Row> keyState,
        @StateId("tickCell") ValueState<KV<Long, Long>> tickCell,
        @StateId("earlyArmed") ValueState<Boolean> earlyArmed,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey,
        @TimerId("early") Timer early,
        MultiOutputReceiver out)
        throws Exception {
      onTick(
          context,
          pending,
          windowsState,
          keyState,
          tickCell,
          earlyArmed,
          perKey.get(timerId),
          early,
          out);
    }

    /**
     * The counters of the bundle, reported once at its end ({@link StreamformMetrics#perBundle}).
     */
    @FinishBundle
    public void reportCounts() {
      StreamformMetrics.BundleCounter.flush(
          processed, revisionsEmitted, finalized, live, lateRows, lateEvents, onTimeAfterRevision);
    }

    @OnTimer("tick")
    public void onTick(
        OnTimerContext context,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("windows") ValueState<List<WindowState>> windowsState,
        @StateId("key") ValueState<Row> keyState,
        @StateId("tickCell") ValueState<KV<Long, Long>> tickCell,
        @StateId("earlyArmed") ValueState<Boolean> earlyArmed,
        @TimerId("tick") Timer tick,
        @TimerId("early") Timer early,
        MultiOutputReceiver out)
        throws Exception {
      // An event-time timer fires once the input watermark is past its time: W >= fire + 1ms
      // (KeyWindows.nextEdge sets the tick 1 ms before an edge for that reason)
      long now = context.fireTimestamp().getMillis() + 1;
      List<WindowState> stored = windowsState.read();
      KeyWindows key =
          new KeyWindows(
              stored == null ? new ArrayList<>() : new ArrayList<>(stored), keyState, out);
      KeyedEngine.Fired fired = KeyedEngine.fire(pending, now, key, tick);
      keep(stored, key, fired.waiting(), windowsState, keyState, earlyArmed, early);
      if (fired.at() == null) {
        tickCell.clear();
      } else {
        tickCell.write(KV.of(fired.at(), fired.hold()));
      }
    }

    /**
     * Keeps what applying events and passing edges left of a key: its windows ({@code stored} as
     * read before), its key row (cleared with the last window when no event is {@code waiting}),
     * and the processing-time preview timer, armed while a window awaits revision 1.
     */
    private void keep(
        @Nullable List<WindowState> stored,
        KeyWindows key,
        boolean waiting,
        ValueState<List<WindowState>> windowsState,
        ValueState<Row> keyState,
        ValueState<Boolean> earlyArmed,
        Timer early) {
      List<WindowState> windows = key.windows;
      if (earlyInterval != null
          && !Boolean.TRUE.equals(earlyArmed.read())
          && awaitingRevision(windows)) {
        early.offset(earlyInterval).setRelative();
        earlyArmed.write(true);
      }
      if (windows.isEmpty()) {
        if (stored != null) {
          windowsState.clear();
        }
        if (!waiting && key.key != null) {
          keyState.clear(); // nothing of this key is left: no state stays behind
        }
      } else if (key.changed) {
        windowsState.write(windows);
        if (stateBytes.due()) {
          // the key's windows, its key row and its tick's two times (see StateBytes)
          stateBytes.add(
              stateBytes.size(windowsCoder, windows)
                  + stateBytes.size(keyCoder, key.key)
                  + 2 * stateBytes.size(VarLongCoder.of(), windows.get(0).end));
        }
      }
    }

    /**
     * A key's windows as one firing changes them. Its edges are the windows' next edges (the end,
     * then end + allowed lateness); it holds the output watermark before the end of every window
     * still waiting for revision 1, so those records are never late.
     */
    private final class KeyWindows implements KeyedEngine.Handler {
      final List<WindowState> windows;
      @Nullable Row key;
      boolean changed;
      private final ValueState<Row> keyState;
      private final MultiOutputReceiver out;
      private @Nullable WindowState edge;

      KeyWindows(List<WindowState> windows, ValueState<Row> keyState, MultiOutputReceiver out) {
        this.windows = windows;
        this.keyState = keyState;
        this.key = keyState.read();
        this.out = out;
      }

      @Override
      public void apply(TimedEvent event) {
        if (key == null) {
          key = keyOf(event.envelope().record());
          keyState.write(key);
        }
        WindowFnImpl.this.apply(event, windows, key, out);
        changed = true;
      }

      @Override
      public @Nullable Long edgeDue(long now) {
        edge = WindowFnImpl.this.nextEdge(windows, now);
        return edge == null ? null : edge.nextEdge(lateness);
      }

      @Override
      public void passEdge(long at) {
        WindowFnImpl.this.passEdge(edge, windows, key, out);
        changed = true;
      }

      /**
       * When the tick must fire for the key's next edge after {@code now}: 1 ms before the edge. A
       * window's edges are reached when {@code W >= edge} (docs/semantics.md §6.10, §6.13), and an
       * event-time timer fires only once the input watermark is past its time; a tick at the edge
       * itself waited for {@code W >= edge + 1ms}, so a watermark that stopped exactly at an edge
       * (a watermark item at a window's end, the last record on a quiet topic) published nothing
       * until a later record moved it on. {@link #onTick} reads a firing at {@code T} as {@code W
       * >= T + 1ms}.
       */
      @Override
      public @Nullable Long nextEdge(long now) {
        Long first = null;
        for (WindowState w : windows) {
          long e = w.nextEdge(lateness);
          if (e > now) { // an edge at or before now is only ever held back by an event not yet due
            first = first == null ? e : Math.min(first, e);
          }
        }
        return first == null ? null : first - 1;
      }

      @Override
      public @Nullable Long hold() {
        Long hold = null;
        for (WindowState w : windows) {
          if (w.revision == 0) {
            hold = hold == null ? w.end - 1 : Math.min(hold, w.end - 1);
          }
        }
        return hold;
      }
    }

    @OnTimer("early")
    public void onEarly(
        @StateId("windows") ValueState<List<WindowState>> windowsState,
        @StateId("key") ValueState<Row> keyState,
        @StateId("earlyArmed") ValueState<Boolean> earlyArmed,
        @TimerId("early") Timer early,
        MultiOutputReceiver out) {
      List<WindowState> windows = windowsState.read();
      Row key = keyState.read();
      if (windows == null || key == null) {
        earlyArmed.write(false);
        return;
      }
      boolean changed = false;
      for (WindowState w : windows) {
        if (w.revision == 0 && w.onTime > w.previewedOnTime) {
          emit(w, key, WindowStatus.EARLY, 0, null, out);
          w.previewedOnTime = w.onTime;
          changed = true;
        }
      }
      if (changed) {
        windowsState.write(windows);
      }
      if (awaitingRevision(windows)) {
        early.offset(earlyInterval).setRelative();
      } else {
        earlyArmed.write(false);
      }
    }

    private static boolean awaitingRevision(List<WindowState> windows) {
      for (WindowState w : windows) {
        if (w.revision == 0) {
          return true;
        }
      }
      return false;
    }

    /** The window whose next edge comes first at or before {@code now} (then by window start). */
    private @Nullable WindowState nextEdge(List<WindowState> windows, long now) {
      WindowState first = null;
      for (WindowState w : windows) {
        long e = w.nextEdge(lateness);
        if (e <= now
            && (first == null
                || e < first.nextEdge(lateness)
                || (e == first.nextEdge(lateness) && w.start < first.start))) {
          first = w;
        }
      }
      return first;
    }

    /** The watermark reached an edge of {@code w}: revision 1, or the final record. */
    private void passEdge(
        WindowState w, List<WindowState> windows, Row key, MultiOutputReceiver out) {
      if (w.revision == 0) {
        w.revision = 1;
        revisionsEmitted.inc();
        emit(w, key, WindowStatus.ON_TIME, 1, null, out);
      } else {
        finalized.inc();
        int last =
            planted == PlantedDefect.WINDOW_FINAL_IS_NEW_REVISION ? w.revision + 1 : w.revision;
        emit(w, key, WindowStatus.FINAL, last, last > 1 ? last - 1 : null, out);
        windows.remove(w); // the window is final: its state is freed
        live.dec();
      }
    }

    /**
     * Applies one released event to each of its windows, judged against its partition's watermark.
     */
    private void apply(
        TimedEvent event, List<WindowState> windows, Row key, MultiOutputReceiver out) {
      Envelope e = event.envelope();
      Instant arrival = event.watermarkAtArrival();
      long t = e.eventTime().getMillis();
      List<long[]> containing = windowsOf(t);
      for (long[] window : containing) {
        String outside = WindowRange.refusal(t, window[0], window[1]);
        if (outside != null) {
          BadEvents.refuse(event, eventCoder, outside, refused, out, quarantined);
          return; // a window past the range of timestamps (WindowRange): in no window
        }
      }
      // the event folded into each window that accepts it, before any of them changes: one whose
      // int64 sum would overflow is refused whole, in no window (see withBadRecordErrorHandler)
      Row[] folded = new Row[containing.size()];
      for (int i = 0; i < containing.size(); i++) {
        long[] window = containing.get(i);
        if (arrival == null || arrival.getMillis() < tooLateFrom(window[1])) {
          WindowState w = find(windows, window[0]);
          try {
            folded[i] = accumulators.add(w == null ? null : w.accumulator, e.record());
          } catch (Accumulators.SumOverflow overflow) {
            BadEvents.refuse(event, eventCoder, overflow, refused, out, quarantined);
            return;
          }
        }
      }
      boolean accepted = false;
      for (int i = 0; i < containing.size(); i++) {
        long start = containing.get(i)[0];
        long end = containing.get(i)[1];
        if (arrival != null && arrival.getMillis() >= tooLateFrom(end)) {
          lateRows.inc();
          out.get(tooLate)
              .outputWithTimestamp(
                  TooLateEvent.of(e, new Instant(start), new Instant(end), arrival), e.eventTime());
          continue;
        }
        accepted = true;
        WindowState w = find(windows, start);
        if (w == null) {
          w = new WindowState(start, end);
          windows.add(w);
          live.inc();
        }
        w.accumulator = folded[i];
        w.include(e.partition(), e.offset());
        boolean onTime =
            arrival == null
                || arrival.getMillis() < end
                || (planted == PlantedDefect.WINDOW_ON_TIME_AT_END && arrival.getMillis() == end);
        if (onTime && w.revision == 0) {
          w.onTime++;
          if (earlyEvents > 0 && w.onTime % earlyEvents == 0) {
            emit(w, key, WindowStatus.EARLY, 0, null, out);
          }
        } else {
          if (onTime) {
            onTimeAfterRevision.inc();
          }
          if (planted == PlantedDefect.WINDOW_LATER_CORRECTIONS_SILENT && w.revision >= 2) {
            continue;
          }
          boolean first = w.revision == 0;
          w.revision++;
          revisionsEmitted.inc();
          Row accumulated = w.accumulator;
          if (planted == PlantedDefect.WINDOW_CORRECTIONS_AS_DELTAS && !first) {
            w.accumulator = accumulators.add(null, e.record()); // this correction alone
          }
          emit(
              w,
              key,
              first && planted == PlantedDefect.WINDOW_FIRST_CORRECTION_ON_TIME
                  ? WindowStatus.ON_TIME
                  : WindowStatus.CORRECTED,
              w.revision,
              w.revision > 1
                  ? (planted == PlantedDefect.WINDOW_PREDECESSOR_IS_SELF
                      ? w.revision
                      : w.revision - 1)
                  : null,
              out);
          w.accumulator = accumulated;
        }
      }
      if (accepted) {
        processed.inc();
      } else {
        lateEvents.inc(); // every window containing it refused it
      }
    }

    /** From when a window ending at {@code end} refuses an event as too late. */
    private long tooLateFrom(long end) {
      return planted == PlantedDefect.WINDOW_ACCEPTED_AT_LATENESS_EDGE
          ? end + lateness + 1
          : end + lateness;
    }

    /** {@code {start, end}} of each window holding {@code t}, earliest first. */
    private List<long[]> windowsOf(long t) {
      if (calendar != null) {
        return List.of(calendar.windowOf(t)); // a local day, week or month: its real instants
      }
      List<long[]> windows = new ArrayList<>();
      for (long start : windowStarts(t, size, every, offset)) {
        windows.add(new long[] {start, start + size});
      }
      if (planted == PlantedDefect.WINDOW_SLIDING_END_INCLUSIVE
          && every < size
          && Math.floorMod(t - offset, every) == 0) {
        windows.add(0, new long[] {t - size, t}); // the window that ends at t: not t's
      }
      return windows;
    }

    private static @Nullable WindowState find(List<WindowState> windows, long start) {
      for (WindowState w : windows) {
        if (w.start == start) {
          return w;
        }
      }
      return null;
    }

    private void emit(
        WindowState w,
        Row key,
        WindowStatus status,
        int revision,
        @Nullable Integer predecessor,
        MultiOutputReceiver out) {
      Row values = accumulators.output(w.accumulator);
      if (w.logicalId == null) {
        // the window's identity, hashed once per window while its state stays in memory (a
        // SHA-256 of a canonical text: 13% of this stage's samples when hashed on every record)
        java.time.Instant start = java.time.Instant.ofEpochMilli(w.start);
        java.time.Instant end = java.time.Instant.ofEpochMilli(w.end);
        w.logicalId =
            RevisionIdentity.logicalWindowId(
                model, WindowRevision.plainValues(key), start, end, zoneId); // zone: calendar only
        w.projectionId = RevisionIdentity.projectionId(w.logicalId, generation);
      }
      if (w.digestOf != w.accumulator) {
        w.digest = RevisionIdentity.aggregateDigest(WindowRevision.plainValues(values));
        w.digestOf = w.accumulator;
      }
      String logical = w.logicalId;
      out.get(revisions)
          .outputWithTimestamp(
              WindowRevision.builder()
                  .setModel(model)
                  .setKey(key)
                  .setValues(values)
                  .setWindowStart(new Instant(w.start))
                  .setWindowEnd(new Instant(w.end))
                  .setStatus(status)
                  .setRevision(revision)
                  .setPredecessor(predecessor)
                  .setGeneration(generation)
                  .setLogicalWindowId(logical)
                  .setProjectionId(w.projectionId)
                  .setAggregateDigest(w.digest)
                  .setOffsets(w.offsetList())
                  .setWindowLocal(calendar == null ? null : calendar.localLabel(w.start))
                  .setEmission(++w.emitted)
                  .build(),
              new Instant(w.end - 1));
    }

    private Row keyOf(Row record) {
      Row.Builder b = Row.withSchema(keySchema);
      for (String k : keyColumns) {
        b.addValue(record.getValue(k));
      }
      return b.build();
    }

    @Override
    @SuppressWarnings("deprecation") // records are stamped with their window's end, maybe long past
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }
  }
}

package dev.streamform.transforms.decisions;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.BadRecordCoder;
import dev.streamform.transforms.PlantedDefect;
import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.Accumulators;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.OutputColumns;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.KeyedEngine;
import dev.streamform.transforms.clock.LogOrder;
import dev.streamform.transforms.clock.StageTimers;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.DeclaredId;
import dev.streamform.transforms.envelope.Envelope;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.DelegateCoder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
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
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Scores each event of a clocked stream against its key's event-time feature state and emits one
 * {@link Decision} per event, with its identity (docs/semantics.md §11).
 *
 * <pre>{@code
 * DecisionResult scored = clocked.events().apply(
 *     ScoreEvents.forModel("receipt_risk")
 *         .by("merchant_id")
 *         .withFeatures(Aggregation.sum("amount").as("spend_1h"), Aggregation.countAll().as("receipts_1h"))
 *         .over(Duration.standardHours(1))
 *         .scoredBy(scorer)                                  // a Scorer with a digest
 *         .withLateness(Duration.standardMinutes(10))
 *         .onLateEvents(LateAction.REVISE)
 *         .withMaxClockSkew(Duration.standardMinutes(5), "received_at"));
 * scored.decisions();        // scored | revised
 * scored.reconciliations();  // late events for reconciliation
 * scored.deadLetters();      // malformed timestamps, impossible clock skew, non-finite scores
 * }</pre>
 *
 * <p><b>Features.</b> For an event of key {@code k} with time {@code t}, each feature is its
 * aggregate over the key's other events applied to state with time in {@code (t - range, t]}; which
 * of them count depends on the {@link FeatureContract}. Read the events of a {@code SourceClock}
 * that keeps late events ({@code keepingLateEvents()}): here the declared lateness decides.
 *
 * <p><b>Judging</b>, from the event's own partition's watermark at arrival {@code A} ({@link
 * TimedEvent#watermarkAtArrival()}), in this order: an event without a value in its declared
 * arrival column is dead-lettered (ADR 0113); an event whose time is ahead of its arrival clock by
 * more than the maximum clock skew is dead-lettered; an event with {@code A > t + lateness} is late
 * and handled by the {@link LateAction}; any other event is applied to its key's state and decided.
 *
 * <p><b>As of occurrence</b> (the default): the event is decided once the source watermark reaches
 * {@code t} (at once if its partition's watermark had already passed {@code t}), from the events
 * that arrived while their partition's watermark was below {@code t} ({@code state_cutoff = t}).
 * Events are applied in log order ({@link LogOrder}) and the watermark edges {@code t} between them
 * exactly as {@code WindowedAggregate} interleaves window edges, so every decision, with its state
 * revision and id, is a function of the per-partition logs. <b>Latest available</b>: the event is
 * decided as soon as it is applied, from everything applied so far, events after its time included.
 * It too is applied in log order (ADR 0112): a runner may hand a key's events over in any order —
 * even one partition's, after a shuffle or a duplicate stage's release — and applied as delivered,
 * an event could read, or be revised by, an earlier one of its own partition the wrong way round.
 *
 * <p>State: a key's events are kept while the watermark is below their time + 2·range + lateness,
 * its decisions (for revisions) while below their time + range + lateness; a late event only
 * reaches decisions with time + range + lateness above its arrival watermark, so pruning never
 * changes an answer — while every partition holds the watermark. An idle partition does not
 * (docs/semantics.md §2.7): its events, on time by its own watermark, may reach below what the key
 * still keeps. Each key therefore remembers the newest time it freed (its <em>freed horizon</em>,
 * one for events, one for decisions); an event whose answer would read below it gets no decision
 * and goes to {@link DecisionResult#reconciliations()} with that reason; a late one keeps its
 * declared route with the reason, except {@code revise}, which is reconciled instead of revising
 * from freed state — so that no decision claims state it did not read (ADR 0050). As of occurrence,
 * without idleness the horizon is never reached and routes stay a function of the per-partition
 * logs; latest available prunes by the stage's watermark too (ADR 0112).
 *
 * <p><b>Finite answers only</b> (ADR 0084). A decision never holds a feature or a score that is not
 * a finite double: an event whose features would (a double sum past the largest double, summed in
 * the order the events were applied) or whose score would (finite inputs times large weights) gets
 * no decision and goes to {@link DecisionResult#deadLetters()} ({@link
 * DeadLetter.Reason#NON_FINITE}), naming the first such feature in declaration order, or the score;
 * it stays applied to its key's state, as every event that is not late is before it is decided. A
 * late event that would revise a decision into one is reconciled instead, with that reason, and
 * revises nothing (as ADR 0050 does for freed state).
 */
@AutoValue
public abstract class ScoreEvents extends PTransform<PCollection<TimedEvent>, DecisionResult> {
  /** Metric: events decided (their first decision). */
  public static final String DECIDED = "decisions";

  /** Metric: revisions (decisions after the first of an event). */
  public static final String REVISED = "decisions_revised";

  /** Metric: late events, which get no decision of their own. */
  public static final String LATE = "decisions_late";

  /** Metric: events dead-lettered here: clock skew, or a feature or score not finite (ADR 0084). */
  public static final String DEAD_LETTERED = "decisions_dead_lettered";

  /**
   * Metric: events whose answer reaches below their key's freed horizon (ADR 0050), late or not;
   * the late ones are also in {@link #LATE}, the others in {@link #RECONCILED_BELOW_HORIZON}.
   */
  public static final String BELOW_FREED_HORIZON = "decisions_below_freed_horizon";

  /**
   * Metric: events that are not late and get no decision because their features would read below
   * their key's freed horizon: reconciled instead (ADR 0050). With {@link #DECIDED}, {@link #LATE}
   * and {@link #DEAD_LETTERED} each event the stage judges is counted once.
   */
  public static final String RECONCILED_BELOW_HORIZON = "decisions_reconciled_below_horizon";

  public abstract String model();

  public abstract List<String> keyColumns();

  public abstract List<Aggregation> features();

  public abstract Duration range();

  public abstract @Nullable Scorer scorer();

  public abstract Preprocessor preprocessor();

  public abstract FeatureContract contract();

  public abstract Duration lateness();

  public abstract LateAction lateAction();

  public abstract boolean lateUpdatesState();

  /** The largest allowed lead of event time over arrival; null = not checked. */
  public abstract @Nullable Duration maxClockSkew();

  /**
   * The record's arrival clock column; null = the record's ingest time. A record without a value in
   * it is dead-lettered (ADR 0113).
   */
  public abstract @Nullable String arrivalColumn();

  /**
   * The column holding the event's declared id (the source's {@code event_id}); null = events are
   * named by their position {@code <partition>-<offset>}.
   */
  public abstract @Nullable String eventIdColumn();

  public abstract int generation();

  public abstract @Nullable PCollection<BadRecord> quarantine();

  /** Where events ahead of their arrival by more than the skew bound also go, as bad records. */
  public abstract @Nullable ErrorHandler<BadRecord, ?> badRecordErrorHandler();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setModel(String model);

    abstract Builder setKeyColumns(List<String> keys);

    abstract Builder setFeatures(List<Aggregation> features);

    abstract Builder setRange(Duration range);

    abstract Builder setScorer(@Nullable Scorer scorer);

    abstract Builder setPreprocessor(Preprocessor preprocessor);

    abstract Builder setContract(FeatureContract contract);

    abstract Builder setLateness(Duration lateness);

    abstract Builder setLateAction(LateAction action);

    abstract Builder setLateUpdatesState(boolean updates);

    abstract Builder setMaxClockSkew(@Nullable Duration skew);

    abstract Builder setArrivalColumn(@Nullable String column);

    abstract Builder setEventIdColumn(@Nullable String column);

    abstract Builder setGeneration(int generation);

    abstract Builder setQuarantine(@Nullable PCollection<BadRecord> quarantine);

    abstract Builder setBadRecordErrorHandler(@Nullable ErrorHandler<BadRecord, ?> handler);

    abstract ScoreEvents build();
  }

  /**
   * Decisions of {@code model}: as of occurrence, lateness 0s, late events ignored and not applied
   * to state, the default preprocessor, generation 1. Needs {@link #by}, {@link #withFeatures},
   * {@link #over} and {@link #scoredBy}.
   */
  public static ScoreEvents forModel(String model) {
    checkArgument(
        model != null && !model.isBlank(), "ScoreEvents.forModel: a model name is needed");
    return new AutoValue_ScoreEvents.Builder()
        .setModel(model)
        .setKeyColumns(List.of())
        .setFeatures(List.of())
        .setRange(Duration.ZERO)
        .setScorer(null)
        .setPreprocessor(Preprocessor.featuresAndNumericColumns())
        .setContract(FeatureContract.AS_OF_OCCURRENCE)
        .setLateness(Duration.ZERO)
        .setLateAction(LateAction.IGNORE)
        .setLateUpdatesState(false)
        .setGeneration(1)
        .build();
  }

  public ScoreEvents by(String... keyColumns) {
    return by(List.of(keyColumns));
  }

  public ScoreEvents by(List<String> keyColumns) {
    checkArgument(!keyColumns.isEmpty(), "ScoreEvents.by: at least one key column is needed");
    return toBuilder().setKeyColumns(List.copyOf(keyColumns)).build();
  }

  /** The feature aggregates, in order (their names are the features' names). */
  public ScoreEvents withFeatures(Aggregation... features) {
    return withFeatures(features == null ? null : java.util.Arrays.asList(features));
  }

  public ScoreEvents withFeatures(List<Aggregation> features) {
    checkArgument(
        features != null && !features.isEmpty(),
        "ScoreEvents.withFeatures() names no feature: a scoring model needs at least one, e.g."
            + " withFeatures(Aggregation.sum(\"amount\").as(\"spend_1h\"))");
    for (int i = 0; i < features.size(); i++) {
      checkArgument(
          features.get(i) != null,
          "ScoreEvents.withFeatures: feature %s is null; give an Aggregation, e.g."
              + " Aggregation.countAll().as(\"receipts_1h\")",
          i + 1);
    }
    return toBuilder().setFeatures(List.copyOf(features)).build();
  }

  /** The trailing event-time range the features aggregate over: {@code (t - range, t]}. */
  public ScoreEvents over(Duration range) {
    checkArgument(
        range != null && range.isLongerThan(Duration.ZERO),
        "ScoreEvents.over: the range must be positive");
    Times.checkAtMostMax("ScoreEvents.over", range);
    return toBuilder().setRange(range).build();
  }

  public ScoreEvents scoredBy(Scorer scorer) {
    checkArgument(scorer != null, "ScoreEvents.scoredBy: a scorer is needed");
    return toBuilder().setScorer(scorer).build();
  }

  public ScoreEvents withPreprocessor(Preprocessor preprocessor) {
    checkArgument(preprocessor != null, "ScoreEvents.withPreprocessor: a preprocessor is needed");
    return toBuilder().setPreprocessor(preprocessor).build();
  }

  public ScoreEvents withContract(FeatureContract contract) {
    checkArgument(
        contract != null,
        "ScoreEvents.withContract(null): give FeatureContract.AS_OF_OCCURRENCE (the default) or"
            + " FeatureContract.LATEST_AVAILABLE");
    return toBuilder().setContract(contract).build();
  }

  /**
   * Events with {@code W_p > t + lateness} at arrival are late ({@link #onLateEvents}); at {@code t
   * + lateness} exactly an event is on time, as one at the watermark is (ADR 0198).
   */
  public ScoreEvents withLateness(Duration lateness) {
    checkArgument(
        lateness != null && !lateness.isShorterThan(Duration.ZERO),
        "ScoreEvents.withLateness: must be 0 or more, got %s",
        lateness);
    Times.checkAtMostMax("ScoreEvents.withLateness", lateness);
    return toBuilder().setLateness(lateness).build();
  }

  public ScoreEvents onLateEvents(LateAction action) {
    checkArgument(
        action != null,
        "ScoreEvents.onLateEvents(null): give LateAction.IGNORE, LateAction.REVISE or"
            + " LateAction.RECONCILE (ignore is the default)");
    return toBuilder().setLateAction(action).build();
  }

  /**
   * Whether late events are applied to the key's feature state (so later decisions read them); the
   * decisions already made never change either way.
   */
  public ScoreEvents lateEventsUpdateState(boolean updates) {
    return toBuilder().setLateUpdatesState(updates).build();
  }

  /**
   * Dead-letters an event whose time is ahead of its arrival by more than {@code skew}; arrival is
   * the record's {@code arrivalColumn} (a timestamp column, e.g. when the broker or server received
   * it), or its ingest time when null. Both are part of the log, so replays judge alike. With a
   * column, a record without a value in it is dead-lettered too: its skew cannot be judged, and its
   * ingest time is not part of a file's log (ADR 0113). Give the source's clock the same bound
   * ({@code SourceClock.withMaxClockSkew}), so such an event moves no watermark (ADR 0195).
   */
  public ScoreEvents withMaxClockSkew(Duration skew, @Nullable String arrivalColumn) {
    checkArgument(
        skew != null && !skew.isShorterThan(Duration.ZERO),
        "ScoreEvents.withMaxClockSkew: must be 0 or more");
    Times.checkAtMostMax("ScoreEvents.withMaxClockSkew", skew);
    return toBuilder().setMaxClockSkew(skew).setArrivalColumn(arrivalColumn).build();
  }

  /**
   * Names each decision's event (its {@code event_id}, and a revision's {@code revised_by}) and
   * each late event's row by the record's value in {@code column}, the id the source declares
   * ({@code event_id:}), as text; without it, or where the value is missing, by its position {@code
   * <partition>-<offset>}. Partition and offset are in the decision either way.
   */
  public ScoreEvents withEventIds(String column) {
    checkArgument(
        column != null && !column.isBlank(), "ScoreEvents.withEventIds: a column is needed");
    return toBuilder().setEventIdColumn(column).build();
  }

  public ScoreEvents withGeneration(int generation) {
    checkArgument(
        generation > 0, "ScoreEvents.withGeneration: must be positive, got %s", generation);
    return toBuilder().setGeneration(generation).build();
  }

  /**
   * Adds the extraction's quarantine to {@link DecisionResult#deadLetters()} (malformed
   * timestamps).
   */
  public ScoreEvents withQuarantine(PCollection<BadRecord> quarantine) {
    return toBuilder().setQuarantine(quarantine).build();
  }

  /**
   * Events whose time is ahead of their arrival by more than the skew bound ({@link
   * #withMaxClockSkew}), and events whose feature or score would not be finite (ADR 0084), also go
   * to {@code handler} as bad records (Beam's convention: {@code
   * pipeline.registerBadRecordErrorHandler(sink)}), each with its reason naming the partition and
   * offset; {@link DecisionResult#deadLetters()} still has them. Records without a usable event
   * time reach a handler from {@code EventTimeExtraction.withBadRecordErrorHandler}.
   */
  public ScoreEvents withBadRecordErrorHandler(ErrorHandler<BadRecord, ?> handler) {
    checkArgument(
        handler != null,
        "ScoreEvents.withBadRecordErrorHandler(null): pass the handler that"
            + " pipeline.registerBadRecordErrorHandler(..) returned");
    return toBuilder().setBadRecordErrorHandler(handler).build();
  }

  /**
   * The score a decision of {@code event} whose features read {@code features} gets: the scorer's
   * score of the preprocessor's inputs, kept to 6 places (half even); a score that is not finite as
   * it is (no decision is made from it, ADR 0084). Every decision's score is computed here, and
   * {@code streamform decisions verify} recomputes a stored decision's score with it.
   */
  public double scoreOf(Map<String, Double> features, Row event) {
    checkArgument(scorer() != null, "ScoreEvents.scoreOf: call scoredBy(<scorer>) first");
    return score(scorer(), preprocessor(), features, event);
  }

  /** See {@link #scoreOf}. */
  static double score(
      Scorer scorer, Preprocessor preprocessor, Map<String, Double> features, Row event) {
    double raw = scorer.score(preprocessor.prepare(features, event));
    return Double.isFinite(raw)
        ? BigDecimal.valueOf(raw).setScale(SCORE_PLACES, RoundingMode.HALF_EVEN).doubleValue()
        : raw;
  }

  /** The decimal places a decision's score keeps (half even). */
  static final int SCORE_PLACES = 6;

  @Override
  public DecisionResult expand(PCollection<TimedEvent> input) {
    checkArgument(
        input.getCoder() instanceof ClockCoders.TimedEventCoder,
        "ScoreEvents reads the events() of a SourceClock; got coder %s",
        input.getCoder());
    checkArgument(!keyColumns().isEmpty(), "ScoreEvents: call by(<key columns>) first");
    checkArgument(!features().isEmpty(), "ScoreEvents: call withFeatures(<aggregations>) first");
    checkArgument(range().isLongerThan(Duration.ZERO), "ScoreEvents: call over(<range>) first");
    checkArgument(scorer() != null, "ScoreEvents: call scoredBy(<scorer>) first");
    ClockCoders.TimedEventCoder coder = (ClockCoders.TimedEventCoder) input.getCoder();
    Schema records = coder.envelopeCoder().recordSchema();
    Schema.Builder keySchema = Schema.builder();
    for (String k : keyColumns()) {
      checkArgument(
          records.hasField(k),
          "ScoreEvents: key column `%s` is not a field of the records (fields: %s)",
          k,
          records.getFieldNames());
      keySchema.addField(records.getField(k));
    }
    if (arrivalColumn() != null) {
      checkArgument(
          records.hasField(arrivalColumn())
              && records.getField(arrivalColumn()).getType().getTypeName()
                  == Schema.TypeName.DATETIME,
          "ScoreEvents: arrival column `%s` is not a timestamp field of the records",
          arrivalColumn());
    }
    if (eventIdColumn() != null) {
      checkArgument(
          records.hasField(eventIdColumn()),
          "ScoreEvents: event id column `%s` is not a field of the records (fields: %s)",
          eventIdColumn(),
          records.getFieldNames());
    }
    for (Aggregation a : features()) {
      // every feature is read as a number for the scorer: MIN or MAX of a text, a timestamp or
      // a bool failed the first decision with a class cast (what check refuses in a declared
      // model)
      if (a.column() != null
          && a.function() != Aggregation.Function.COUNT // a count is a number
          && records.hasField(a.column())) {
        Schema.TypeName t = records.getField(a.column()).getType().getTypeName();
        checkArgument(
            t.isNumericType() || t == Schema.TypeName.DECIMAL,
            "ScoreEvents: feature `%s` aggregates `%s`, a %s field: a feature is a number its"
                + " scorer reads; aggregate a numeric field, or count it",
            a.name(),
            a.column(),
            t);
      }
    }
    if (scorer() instanceof LinearScorer linear
        && preprocessor() instanceof Preprocessor.FeaturesAndNumericColumns) {
      // what check refuses in a declared model's linear file: a weight that weighs nothing (a
      // typo would score every event without it, silently)
      java.util.Set<String> inputs = new java.util.TreeSet<>();
      features().forEach(a -> inputs.add(a.name()));
      for (Schema.Field f : records.getFields()) {
        Schema.TypeName t = f.getType().getTypeName();
        if (t.isNumericType() || t == Schema.TypeName.DECIMAL) {
          inputs.add(f.getName());
        }
      }
      for (String weighed : linear.weights().keySet()) {
        checkArgument(
            inputs.contains(weighed),
            "ScoreEvents: the LinearScorer's weight `%s` names no feature and no numeric field of"
                + " the records; weigh one of: %s",
            weighed,
            String.join(", ", inputs));
      }
    }
    Accumulators accumulators = new Accumulators(records, features());
    List<String> keys = keyColumns();
    Schema keyRows = keySchema.build();
    // Named, not anonymous, tags: an anonymous one would capture this transform in the DoFn.
    TupleTag<Decision> decisions = new TupleTag<>("decisions");
    TupleTag<UnscoredLateEvent> reconciled = new TupleTag<>("reconciliations");
    TupleTag<UnscoredLateEvent> ignored = new TupleTag<>("ignored");
    TupleTag<UnscoredLateEvent> revising = new TupleTag<>("revising");
    // the stage's own dead letters: clock skew and non-finite (the tag keeps its first name)
    TupleTag<DeadLetter> dead = new TupleTag<>("skewed");
    TupleTag<StateUpdate> updates = new TupleTag<>("stateUpdates");
    PCollectionTuple out =
        KeyedEngine.byKey(input, "ByKey", keys, coder)
            .apply(
                "Score",
                ParDo.of(
                        new ScoreFn(
                            this,
                            StageTimers.of(input.getPipeline()),
                            keyRows,
                            accumulators,
                            coder,
                            new Tags(decisions, reconciled, ignored, revising, dead, updates),
                            PlantedDefect.current()))
                    .withOutputTags(
                        decisions,
                        TupleTagList.of(List.of(reconciled, ignored, revising, dead, updates))));
    DecisionCoders.DeadLetterCoder deadLetterCoder = DecisionCoders.DeadLetterCoder.of(records);
    DecisionCoders.UnscoredLateEventCoder lateCoder =
        DecisionCoders.UnscoredLateEventCoder.of(keyRows, records);
    PCollection<DeadLetter> skewed = out.get(dead).setCoder(deadLetterCoder);
    if (badRecordErrorHandler() != null) {
      RowCoder rows = RowCoders.of(records);
      badRecordErrorHandler()
          .addErrorCollection(
              skewed
                  .apply(
                      "SkewAsBadRecords",
                      MapElements.into(TypeDescriptor.of(BadRecord.class))
                          .via((DeadLetter d) -> badRecord(d, rows)))
                  .setCoder(BadRecordCoder.of()));
    }
    PCollection<DeadLetter> deadLetters =
        quarantine() == null
            ? skewed
            : PCollectionList.of(skewed)
                .and(
                    quarantine()
                        .apply(
                            "Quarantined",
                            MapElements.into(TypeDescriptor.of(DeadLetter.class))
                                .via(DeadLetter::of))
                        .setCoder(deadLetterCoder))
                .apply("DeadLetters", Flatten.pCollections());
    Map<TupleTag<?>, PValue> all = new LinkedHashMap<>(out.expand());
    PCollection<Decision> d =
        out.get(decisions).setCoder(DecisionCoders.DecisionCoder.of(keyRows, records));
    PCollection<UnscoredLateEvent> r = out.get(reconciled).setCoder(lateCoder);
    PCollection<UnscoredLateEvent> i = out.get(ignored).setCoder(lateCoder);
    PCollection<UnscoredLateEvent> v = out.get(revising).setCoder(lateCoder);
    PCollection<StateUpdate> u =
        out.get(updates).setCoder(DecisionCoders.StateUpdateCoder.of(keyRows));
    all.put(new TupleTag<DeadLetter>("deadLetters"), deadLetters);
    return new DecisionResult(input.getPipeline(), all, d, r, i, v, deadLetters, u);
  }

  /** A dead letter of this stage (an event with its record) as a bad record. */
  private static BadRecord badRecord(DeadLetter dead, RowCoder rows) {
    BadRecord.Record.Builder record =
        BadRecord.Record.builder().setHumanReadableJsonRecord(dead.record());
    if (dead.row() != null) {
      record.addCoderAndEncodedRecord(rows, dead.row());
    }
    return BadRecord.builder()
        .setRecord(record.build())
        .setFailure(BadRecord.Failure.builder().setDescription(dead.description()).build())
        .build();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    // ADR 0111: as the declaration reads (10m, revise, sum(amount) as spend_1h), with labels
    builder
        .add(DisplayData.item("model", model()).withLabel("Model"))
        .add(DisplayData.item("key", String.join(", ", keyColumns())).withLabel("Key"))
        .add(DisplayData.item("features", OutputColumns.display(features())).withLabel("Features"))
        .add(DisplayData.item("range", Times.format(range())).withLabel("Features over"))
        .add(DisplayData.item("contract", contract().declared()).withLabel("Feature contract"))
        .add(DisplayData.item("lateness", Times.format(lateness())).withLabel("Lateness"))
        .add(DisplayData.item("lateAction", lateAction().declared()).withLabel("Late action"))
        .add(
            DisplayData.item(
                    "lateUpdatesState",
                    lateUpdatesState()
                        ? "applied to the key's state"
                        : "not applied to the key's state")
                .withLabel("Late events"))
        .add(DisplayData.item("generation", generation()).withLabel("Generation"));
    if (scorer() != null) {
      builder.add(DisplayData.item("modelDigest", scorer().digest()).withLabel("Model digest"));
    }
    builder.add(
        DisplayData.item("preprocessingDigest", preprocessor().digest())
            .withLabel("Preprocessing digest"));
    if (maxClockSkew() != null) {
      builder.add(
          DisplayData.item(
                  "maxClockSkew",
                  Times.format(maxClockSkew())
                      + " ahead of "
                      + (arrivalColumn() == null ? "the ingest time" : arrivalColumn()))
              .withLabel("Max clock skew"));
    }
    if (eventIdColumn() != null) {
      builder.add(DisplayData.item("eventIdColumn", eventIdColumn()).withLabel("Event id column"));
    }
  }

  /** The output tags of the scoring DoFn. */
  private static final class Tags implements Serializable {
    final TupleTag<Decision> decisions;
    final TupleTag<UnscoredLateEvent> reconciled;
    final TupleTag<UnscoredLateEvent> ignored;
    final TupleTag<UnscoredLateEvent> revising;
    final TupleTag<DeadLetter> dead;
    final TupleTag<StateUpdate> updates;

    Tags(
        TupleTag<Decision> decisions,
        TupleTag<UnscoredLateEvent> reconciled,
        TupleTag<UnscoredLateEvent> ignored,
        TupleTag<UnscoredLateEvent> revising,
        TupleTag<DeadLetter> dead,
        TupleTag<StateUpdate> updates) {
      this.decisions = decisions;
      this.reconciled = reconciled;
      this.ignored = ignored;
      this.revising = revising;
      this.dead = dead;
      this.updates = updates;
    }
  }

  /** An event applied to a key's feature state. */
  static final class Applied implements Serializable {
    final String eventId;
    final long time;
    final long arrival; // LogOrder.arrivalOf: the beginning of time while undefined
    final Row record;

    Applied(String eventId, long time, long arrival, Row record) {
      this.eventId = eventId;
      this.time = time;
      this.arrival = arrival;
      this.record = record;
    }
  }

  /** A decided event, kept so that a late event can revise its decision. */
  static final class Decided implements Serializable {
    final TimedEvent event;
    final Instant arrivedAt;
    String latestId;
    int revision;

    Decided(TimedEvent event, Instant arrivedAt, String latestId) {
      this.event = event;
      this.arrivedAt = arrivedAt;
      this.latestId = latestId;
      this.revision = 1;
    }

    long time() {
      return event.envelope().eventTime().getMillis();
    }
  }

  /** The coder of a key's applied events in state. */
  static Coder<ArrayList<Applied>> appliedCoder(ClockCoders.TimedEventCoder events) {
    return arrayListOf(new AppliedCoder(events.envelopeCoder().recordSchema()));
  }

  /** The coder of a key's decided events in state. */
  static Coder<ArrayList<Decided>> decidedCoder(ClockCoders.TimedEventCoder events) {
    return arrayListOf(new DecidedCoder(events));
  }

  /** A list in state as an {@link ArrayList}, element by element with {@code elements}. */
  static <T> Coder<ArrayList<T>> arrayListOf(Coder<T> elements) {
    return DelegateCoder.<ArrayList<T>, List<T>>of(
        ListCoder.of(elements), list -> list, list -> new ArrayList<>(list));
  }

  /** An applied event in state: its id, event time, arrival and record, field by field. */
  static final class AppliedCoder extends CustomCoder<Applied> {
    private static final StringUtf8Coder TEXT = StringUtf8Coder.of();
    private static final VarLongCoder LONG = VarLongCoder.of();
    private final RowCoder records;

    AppliedCoder(Schema recordSchema) {
      this.records = RowCoders.of(recordSchema);
    }

    @Override
    public void encode(Applied a, OutputStream out) throws IOException {
      TEXT.encode(a.eventId, out);
      LONG.encode(a.time, out);
      LONG.encode(a.arrival, out);
      records.encode(a.record, out);
    }

    @Override
    public Applied decode(InputStream in) throws IOException {
      return new Applied(TEXT.decode(in), LONG.decode(in), LONG.decode(in), records.decode(in));
    }
  }

  /** A decided event in state: the event, when it arrived, its latest decision and revision. */
  static final class DecidedCoder extends CustomCoder<Decided> {
    private static final Coder<String> ID = NullableCoder.of(StringUtf8Coder.of());
    private static final Coder<Instant> AT = NullableCoder.of(InstantCoder.of());
    private final ClockCoders.TimedEventCoder events;

    DecidedCoder(ClockCoders.TimedEventCoder events) {
      this.events = events;
    }

    @Override
    public void encode(Decided d, OutputStream out) throws IOException {
      events.encode(d.event, out);
      AT.encode(d.arrivedAt, out);
      ID.encode(d.latestId, out);
      VarIntCoder.of().encode(d.revision, out);
    }

    @Override
    public Decided decode(InputStream in) throws IOException {
      Decided d = new Decided(events.decode(in), AT.decode(in), ID.decode(in));
      d.revision = VarIntCoder.of().decode(in);
      return d;
    }
  }

  /** A key's state as one tick or element changes it. */
  private static final class KeyState {
    ArrayList<Applied> applied;
    ArrayList<Decided> decided;
    ArrayList<TimedEvent> awaiting;
    long revision;

    /** The newest time of an applied event freed, null when none was (the freed horizon). */
    @Nullable Long freedEvents;

    /** The newest time of a decided event freed (no longer revisable), null when none was. */
    @Nullable Long freedDecisions;

    KeyState(
        @Nullable ArrayList<Applied> applied,
        @Nullable ArrayList<Decided> decided,
        @Nullable ArrayList<TimedEvent> awaiting,
        @Nullable Long revision,
        @Nullable ArrayList<Long> freed) {
      this.applied = applied == null ? new ArrayList<>() : applied;
      this.decided = decided == null ? new ArrayList<>() : decided;
      this.awaiting = awaiting == null ? new ArrayList<>() : awaiting;
      this.revision = revision == null ? 0 : revision;
      this.freedEvents = freed == null ? null : freed.get(0);
      this.freedDecisions = freed == null ? null : freed.get(1);
    }

    /** The horizons as one state cell: events, decisions (each nullable); null when neither. */
    @Nullable ArrayList<Long> freed() {
      if (freedEvents == null && freedDecisions == null) {
        return null;
      }
      ArrayList<Long> both = new ArrayList<>(2);
      both.add(freedEvents);
      both.add(freedDecisions);
      return both;
    }
  }

  /** A decision's features and score, or why it cannot be made ({@code refusal}, ADR 0084). */
  private static final class Scored {
    final @Nullable Map<String, Double> features;
    final double score;

    /** What is not finite, e.g. {@code feature `x` is Infinity, ...}; null for a decision. */
    final @Nullable String refusal;

    /** What to change so that it would be, for the refusal's reason. */
    final @Nullable String fix;

    Scored(
        @Nullable Map<String, Double> features,
        double score,
        @Nullable String refusal,
        @Nullable String fix) {
      this.features = features;
      this.score = score;
      this.refusal = refusal;
      this.fix = fix;
    }

    static Scored refused(String refusal, String fix) {
      return new Scored(null, Double.NaN, refusal, fix);
    }
  }

  private static final class ScoreFn extends DoFn<KV<String, TimedEvent>, Decision> {
    private final String model;
    private final List<String> keyColumns;
    private final Schema keySchema;
    private final Accumulators accumulators;
    private final List<Aggregation> features;
    private final long range;
    private final Scorer scorer;
    private final Preprocessor preprocessor;
    private final FeatureContract contract;
    private final long lateness;
    private final LateAction lateAction;
    private final boolean lateUpdatesState;
    private final @Nullable Long maxSkew;
    private final @Nullable String arrivalColumn;
    private final @Nullable String eventIdColumn;
    private final int generation;
    private final Tags tags;

    /** {@link PlantedDefect#NONE} but in a test that planted one (issue 29). */
    private final PlantedDefect planted;

    private final Counter decided = StreamformMetrics.counter(DECIDED);
    private final Counter revised = StreamformMetrics.counter(REVISED);
    private final Counter lateCount = StreamformMetrics.counter(LATE);
    private final Counter deadLettered = StreamformMetrics.counter(DEAD_LETTERED);
    private final Counter belowHorizon = StreamformMetrics.counter(BELOW_FREED_HORIZON);
    private final Counter reconciledBelowHorizon =
        StreamformMetrics.counter(RECONCILED_BELOW_HORIZON);

    @StateId("pending")
    private final StateSpec<BagState<TimestampedValue<TimedEvent>>> pendingSpec;

    // Hand-written coders, not Java serialization: a savepoint's bytes do not depend on class
    // layout or serialVersionUID, and encoding is cheaper (docs/semantics.md §11; issue 30).
    @StateId("applied")
    private final StateSpec<ValueState<ArrayList<Applied>>> appliedSpec;

    @StateId("decided")
    private final StateSpec<ValueState<ArrayList<Decided>>> decidedSpec;

    @StateId("awaiting")
    private final StateSpec<ValueState<ArrayList<TimedEvent>>> awaitingSpec;

    @StateId("revision")
    private final StateSpec<ValueState<Long>> revisionSpec = StateSpecs.value(VarLongCoder.of());

    /** The key's freed horizons (events, decisions; see {@link KeyState}), ADR 0050. */
    @StateId("freed")
    private final StateSpec<ValueState<ArrayList<Long>>> freedSpec =
        StateSpecs.value(arrayListOf(NullableCoder.of(VarLongCoder.of())));

    @StateId("tickAt")
    private final StateSpec<ValueState<Long>> tickAtSpec = StateSpecs.value(VarLongCoder.of());

    @StateId("holdAt")
    private final StateSpec<ValueState<Long>> holdAtSpec = StateSpecs.value(VarLongCoder.of());

    /**
     * Releases due events in log order and passes the events' occurrence edges in watermark order.
     */
    @TimerId("tick")
    private final TimerSpec tickSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    /** The same timer, one per key, where the runner needs that ({@link StageTimers}). */
    @TimerFamily(StageTimers.FAMILY)
    private final TimerSpec perKeySpec = TimerSpecs.timerMap(TimeDomain.EVENT_TIME);

    private final StageTimers timers;

    ScoreFn(
        ScoreEvents spec,
        StageTimers timers,
        Schema keySchema,
        Accumulators accumulators,
        ClockCoders.TimedEventCoder events,
        Tags tags,
        PlantedDefect planted) {
      this.timers = timers;
      this.planted = planted;
      this.model = spec.model();
      this.keyColumns = spec.keyColumns();
      this.keySchema = keySchema;
      this.accumulators = accumulators;
      this.features = spec.features();
      this.range = spec.range().getMillis();
      this.scorer = spec.scorer();
      this.preprocessor = spec.preprocessor();
      this.contract = spec.contract();
      this.lateness = spec.lateness().getMillis();
      this.lateAction = spec.lateAction();
      this.lateUpdatesState = spec.lateUpdatesState();
      this.maxSkew = spec.maxClockSkew() == null ? null : spec.maxClockSkew().getMillis();
      this.arrivalColumn = spec.arrivalColumn();
      this.eventIdColumn = spec.eventIdColumn();
      this.generation = spec.generation();
      this.tags = tags;
      this.pendingSpec = StateSpecs.bag(LogOrder.bufferCoder(events));
      this.appliedSpec = StateSpecs.value(appliedCoder(events));
      this.decidedSpec = StateSpecs.value(decidedCoder(events));
      this.awaitingSpec = StateSpecs.value(arrayListOf(events));
    }

    @ProcessElement
    public void process(
        @Element KV<String, TimedEvent> element,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("applied") ValueState<ArrayList<Applied>> appliedState,
        @StateId("decided") ValueState<ArrayList<Decided>> decidedState,
        @StateId("awaiting") ValueState<ArrayList<TimedEvent>> awaitingState,
        @StateId("revision") ValueState<Long> revisionState,
        @StateId("freed") ValueState<ArrayList<Long>> freedState,
        @StateId("tickAt") ValueState<Long> tickAt,
        @StateId("holdAt") ValueState<Long> holdAt,
        @TimerId("tick") Timer declaredTick,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey,
        MultiOutputReceiver out) {
      Timer tick = timers.get("tick", element.getKey(), declaredTick, perKey);
      // applied in log order once due (see KeyedEngine.buffer), under either contract: a runner
      // may hand a key's events over in any order, even one partition's (ADR 0112)
      KeyedEngine.buffer(element.getValue(), pending, tickAt, holdAt, tick);
    }

    /** The key's tick where it is a member of the stage's timer family ({@link StageTimers}). */
    @OnTimerFamily(StageTimers.FAMILY)
    public void onPerKeyTick(
        OnTimerContext context,
        @TimerId String timerId,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("applied") ValueState<ArrayList<Applied>> appliedState,
        @StateId("decided") ValueState<ArrayList<Decided>> decidedState,
        @StateId("awaiting") ValueState<ArrayList<TimedEvent>> awaitingState,
        @StateId("revision") ValueState<Long> revisionState,
        @StateId("freed") ValueState<ArrayList<Long>> freedState,
        @StateId("tickAt") ValueState<Long> tickAt,
        @StateId("holdAt") ValueState<Long> holdAt,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey,
        MultiOutputReceiver out)
        throws Exception {
      onTick(
          context,
          pending,
          appliedState,
          decidedState,
          awaitingState,
          revisionState,
          freedState,
          tickAt,
          holdAt,
          perKey.get(timerId),
          out);
    }

    @OnTimer("tick")
    public void onTick(
        OnTimerContext context,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("applied") ValueState<ArrayList<Applied>> appliedState,
        @StateId("decided") ValueState<ArrayList<Decided>> decidedState,
        @StateId("awaiting") ValueState<ArrayList<TimedEvent>> awaitingState,
        @StateId("revision") ValueState<Long> revisionState,
        @StateId("freed") ValueState<ArrayList<Long>> freedState,
        @StateId("tickAt") ValueState<Long> tickAt,
        @StateId("holdAt") ValueState<Long> holdAt,
        @TimerId("tick") Timer tick,
        MultiOutputReceiver out)
        throws Exception {
      // An event-time timer fires once the input watermark is past its time: W >= fire + 1ms
      // (the handler's nextEdge sets the tick 1 ms before an occurrence edge for that reason)
      long now = context.fireTimestamp().getMillis() + 1;
      KeyState key =
          new KeyState(
              appliedState.read(),
              decidedState.read(),
              awaitingState.read(),
              revisionState.read(),
              freedState.read());
      KeyedEngine.Fired fired =
          KeyedEngine.fire(
              pending,
              now,
              new KeyedEngine.Handler() {
                @Override
                public void apply(TimedEvent event) {
                  ScoreFn.this.apply(event, key, out);
                }

                @Override
                public @Nullable Long edgeDue(long at) {
                  return ScoreFn.nextEdge(key.awaiting, at);
                }

                @Override
                public void passEdge(long edge) {
                  ScoreFn.this.passEdge(edge, key, out);
                }

                /**
                 * 1 ms before the earliest occurrence edge after {@code at}: an event is decided
                 * once the source watermark reaches its time ({@code W >= t}, ADR 0100), and an
                 * event-time timer fires only once the watermark is past its time, so a tick at
                 * {@code t} itself waited for {@code W >= t + 1ms}. {@code onTick} reads a firing
                 * at {@code T} as {@code W >= T + 1ms}.
                 */
                @Override
                public @Nullable Long nextEdge(long at) {
                  Long first = null;
                  for (TimedEvent e : key.awaiting) {
                    long t = e.envelope().eventTime().getMillis();
                    if (t > at) {
                      first = first == null ? t : Math.min(first, t);
                    }
                  }
                  return first == null ? null : first - 1;
                }

                /** An event awaiting its first decision holds the watermark at its time. */
                @Override
                public @Nullable Long hold() {
                  Long hold = null;
                  for (TimedEvent e : key.awaiting) {
                    long t = e.envelope().eventTime().getMillis();
                    hold = hold == null ? t : Math.min(hold, t);
                  }
                  return hold;
                }
              },
              tick);
      Long earliestArrival = fired.earliestWaitingArrival();
      prune(key, earliestArrival == null ? now : Math.min(now, earliestArrival));
      write(key, appliedState, decidedState, awaitingState, revisionState, freedState);
      KeyedEngine.keep(fired, tickAt, holdAt);
    }

    private static @Nullable Long nextEdge(List<TimedEvent> awaiting, long now) {
      Long first = null;
      for (TimedEvent e : awaiting) {
        long t = e.envelope().eventTime().getMillis();
        if (t <= now && (first == null || t < first)) {
          first = t;
        }
      }
      return first;
    }

    /** The source watermark reached {@code edge}: decides the events that occurred at it. */
    private void passEdge(long edge, KeyState key, MultiOutputReceiver out) {
      List<TimedEvent> now = new ArrayList<>();
      key.awaiting.removeIf(
          e -> {
            if (e.envelope().eventTime().getMillis() == edge) {
              now.add(e);
              return true;
            }
            return false;
          });
      for (TimedEvent e : now) {
        decideFirst(e, new Instant(edge), new Instant(edge), key, out);
      }
    }

    /**
     * The name a decision or late row gives its event: the declared id, or the position when none
     * is declared (or the record has no value for it).
     */
    private String idOf(Envelope e) {
      String id =
          eventIdColumn == null ? null : DeclaredId.text(e.record().getValue(eventIdColumn));
      return id == null ? e.eventId() : id;
    }

    /** Judges and applies one event (see the class comment). */
    private void apply(TimedEvent event, KeyState key, MultiOutputReceiver out) {
      Envelope e = event.envelope();
      long t = e.eventTime().getMillis();
      if (arrivalColumn != null && e.record().getValue(arrivalColumn) == null) {
        // no arrival clock to judge it by: not the ingest time, which a run reads off the wall
        // clock and a fixture sets to the epoch (ADR 0113)
        skewed(
            e,
            "arrival column `"
                + arrivalColumn
                + "` is missing, so its clock skew cannot be judged; give the record its `"
                + arrivalColumn
                + "`",
            out);
        return;
      }
      Instant arrivedAt = arrivedAt(e);
      if (maxSkew != null && t - arrivedAt.getMillis() > maxSkew) {
        skewed(
            e,
            "event time "
                + e.eventTime()
                + " is "
                + (t - arrivedAt.getMillis())
                + "ms ahead of its arrival "
                + arrivedAt
                + " (max clock skew "
                + maxSkew
                + "ms)",
            out);
        return;
      }
      Instant a = event.watermarkAtArrival();
      if (a != null && a.getMillis() > t + lateness) { // equal is on time (ADR 0198)
        late(event, arrivedAt, key, out);
        return;
      }
      applyToState(event, false, key, out);
      if (contract == FeatureContract.LATEST_AVAILABLE) {
        Instant stamp = a == null ? e.eventTime() : a;
        decideFirst(event, stamp, stamp, key, out);
      } else if (a == null || a.getMillis() < t) {
        key.awaiting.add(event); // decided when the source watermark reaches t
      } else {
        decideFirst(event, e.eventTime(), a, key, out); // its partition had passed t already
      }
    }

    /** A clock-skew dead letter: {@code what} follows the event's partition and offset. */
    private void skewed(Envelope e, String what, MultiOutputReceiver out) {
      deadLettered.inc();
      out.get(tags.dead)
          .outputWithTimestamp(
              DeadLetter.skew(
                  e.eventId(),
                  "partition " + e.partition() + " offset " + e.offset() + ": " + what,
                  e.record()),
              e.eventTime());
    }

    private void applyToState(
        TimedEvent event, boolean late, KeyState key, MultiOutputReceiver out) {
      Envelope e = event.envelope();
      key.applied.add(
          new Applied(
              e.eventId(), e.eventTime().getMillis(), LogOrder.arrivalOf(event), e.record()));
      key.revision++;
      out.get(tags.updates)
          .outputWithTimestamp(
              StateUpdate.of(keyOf(e.record()), e.eventId(), e.eventTime(), key.revision, late),
              e.eventTime());
    }

    /** An event's first decision, reading the state up to {@code cutoff}. */
    private void decideFirst(
        TimedEvent event, Instant cutoff, Instant scoredAt, KeyState key, MultiOutputReceiver out) {
      Envelope e = event.envelope();
      long t = e.eventTime().getMillis();
      String freed = belowHorizon(event, key);
      if (freed != null) {
        reconcileBelowHorizon(event, freed, key, out);
        return;
      }
      List<Row> read = new ArrayList<>();
      for (Applied x : key.applied) {
        boolean inRange =
            x.time > t - range
                && (contract == FeatureContract.LATEST_AVAILABLE
                    || x.time <= t
                    || planted == PlantedDefect.SCORE_READS_AFTER_OCCURRENCE);
        boolean arrived =
            contract == FeatureContract.LATEST_AVAILABLE
                || x.arrival < cutoff.getMillis()
                || (planted == PlantedDefect.SCORE_CUTOFF_INCLUSIVE
                    && x.arrival == cutoff.getMillis());
        if (!x.eventId.equals(e.eventId()) && inRange && arrived) {
          read.add(x.record);
        }
      }
      Scored scored =
          score(
              e,
              read,
              new Instant(t - range),
              contract == FeatureContract.LATEST_AVAILABLE ? null : e.eventTime());
      if (scored.refusal != null) {
        deadLettered.inc();
        out.get(tags.dead)
            .outputWithTimestamp(
                DeadLetter.nonFinite(
                    e.eventId(),
                    "partition "
                        + e.partition()
                        + " offset "
                        + e.offset()
                        + ": "
                        + scored.refusal
                        + ", so no decision is made from it; "
                        + scored.fix,
                    e.record()),
                scoredAt);
        return;
      }
      Instant arrivedAt = arrivedAt(e);
      Decision d = decide(event, arrivedAt, scored, cutoff, scoredAt, key.revision, 1, null, null);
      key.decided.add(new Decided(event, arrivedAt, d.decisionId()));
      decided.inc();
      out.get(tags.decisions).outputWithTimestamp(d, scoredAt);
    }

    /** A late event: applied to state if declared, then ignored, reconciled or revising. */
    private void late(TimedEvent event, Instant arrivedAt, KeyState key, MultiOutputReceiver out) {
      lateCount.inc();
      Envelope e = event.envelope();
      long t = e.eventTime().getMillis();
      Instant a = event.watermarkAtArrival();
      List<Decided> affected = new ArrayList<>();
      for (Decided d : key.decided) {
        if (d.time() >= t && d.time() < t + range && d.time() + range + lateness > a.getMillis()) {
          affected.add(d);
        }
      }
      affected.sort(
          Comparator.comparingLong(Decided::time)
              .thenComparingInt(d -> d.event.envelope().partition())
              .thenComparingLong(d -> d.event.envelope().offset()));
      String reason =
          belowHorizon(event, Math.max(t, a.getMillis() - range - lateness + 1), affected, key);
      // Revising from freed state would claim what it did not read: reconciled instead (ADR 0050).
      LateAction action =
          reason != null && lateAction == LateAction.REVISE ? LateAction.RECONCILE : lateAction;
      if (reason != null) {
        belowHorizon.inc();
      }
      if (lateUpdatesState) {
        applyToState(event, true, key, out);
      }
      List<String> ids = new ArrayList<>();
      affected.forEach(d -> ids.add(d.latestId)); // before the revisions below replace them
      List<Scored> revisions = new ArrayList<>();
      if (action == LateAction.REVISE) {
        for (Decided d : affected) {
          Scored scored = revisionOf(d, e, key);
          if (scored.refusal != null) {
            // a revision it cannot make: it makes none, as for freed state (ADR 0084)
            action = LateAction.RECONCILE;
            reason =
                "its revision of the decision of event "
                    + idOf(d.event.envelope())
                    + " cannot be made: "
                    + scored.refusal
                    + ", so it revises nothing; "
                    + scored.fix;
            break;
          }
          revisions.add(scored);
        }
      }
      out.get(
              action == LateAction.IGNORE
                  ? tags.ignored
                  : action == LateAction.RECONCILE ? tags.reconciled : tags.revising)
          .outputWithTimestamp(
              UnscoredLateEvent.of(
                  model,
                  keyOf(e.record()),
                  e.record(),
                  idOf(e),
                  e.partition(),
                  e.offset(),
                  e.eventTime(),
                  a,
                  action,
                  lateUpdatesState,
                  ids,
                  reason),
              e.eventTime());
      if (action != LateAction.REVISE) {
        return;
      }
      for (int i = 0; i < affected.size(); i++) {
        Decided d = affected.get(i);
        Decision revision =
            decide(
                d.event,
                d.arrivedAt,
                revisions.get(i),
                a,
                a,
                key.revision,
                d.revision + 1,
                d.latestId,
                idOf(e));
        d.latestId = revision.decisionId();
        d.revision++;
        revised.inc();
        out.get(tags.decisions).outputWithTimestamp(revision, a);
      }
    }

    /**
     * What a revision of {@code d}'s decision reads and gives: the key's events over {@code (s -
     * range, s]} as applied now, and the late event {@code late} even when state does not keep it.
     */
    private Scored revisionOf(Decided d, Envelope late, KeyState key) {
      long s = d.time();
      List<Row> read = new ArrayList<>();
      boolean withLate = false;
      for (Applied x : key.applied) {
        if (!x.eventId.equals(d.event.envelope().eventId()) && x.time > s - range && x.time <= s) {
          read.add(x.record);
          withLate |= x.eventId.equals(late.eventId());
        }
      }
      if (!withLate) {
        // the revision reads the late event even when state does not keep it
        read.add(late.record());
      }
      return score(
          d.event.envelope(), read, new Instant(s - range), d.event.envelope().eventTime());
    }

    /**
     * The features of {@code e} over {@code read} (its key's events in {@code (from, to]}; {@code
     * to} null: up to now) and its score, or why there is no decision from them: the first feature
     * in declaration order that is not a finite double, else the score when it is not (ADR 0084).
     */
    private Scored score(Envelope e, List<Row> read, Instant from, @Nullable Instant to) {
      // the features of the decided event: doubles, so an int64 sum past int64 still has one
      Map<String, Double> values = accumulators.asDoubles(read);
      for (Aggregation f : features) {
        double v = values.get(f.name());
        if (!Double.isFinite(v)) {
          String column = f.column() == null ? "its inputs" : "`" + f.column() + "`";
          String over =
              " over its key's events in ("
                  + from
                  + ", "
                  + (to == null ? "now" : to.toString())
                  + "]";
          return Double.isNaN(v)
              ? Scored.refused(
                  "feature `"
                      + f.name()
                      + "` is NaN, not a number: an event of its key in ("
                      + from
                      + ", "
                      + (to == null ? "now" : to.toString())
                      + "] has NaN in "
                      + column,
                  "a NaN holds every sum of "
                      + column
                      + " at NaN while its event is in the range; send numbers in "
                      + column)
              : Scored.refused(
                  "feature `"
                      + f.name()
                      + "` is "
                      + notFinite(v)
                      + ": the double sum of "
                      + column
                      + over
                      + " overflows",
                  "rescale " + column + " (a larger unit) so that its sums fit");
        }
      }
      double kept = ScoreEvents.score(scorer, preprocessor, values, e.record());
      if (Double.isNaN(kept)) {
        return Scored.refused(NonFiniteScore.NAN, NonFiniteScore.NAN_FIX);
      }
      if (!Double.isFinite(kept)) {
        return Scored.refused(
            "the score is " + notFinite(kept) + ", from finite features",
            "rescale the model's weights or its inputs so that the score fits");
      }
      return new Scored(values, kept, null, null);
    }

    /** A value that is not a finite double, as a refusal names it. */
    private static String notFinite(double v) {
      return Double.isNaN(v)
          ? "NaN, not a number"
          : v + ", outside the double range (about ±1.8e308)";
    }

    private Decision decide(
        TimedEvent event,
        Instant arrivedAt,
        Scored scored,
        Instant cutoff,
        Instant scoredAt,
        long stateRevision,
        int revision,
        @Nullable String supersedes,
        @Nullable String revisedBy) {
      Envelope e = event.envelope();
      return Decision.builder()
          .setModel(model)
          .setKey(keyOf(e.record()))
          .setEvent(e.record())
          .setEventId(idOf(e))
          .setPartition(e.partition())
          .setOffset(e.offset())
          .setOccurredAt(e.eventTime())
          .setArrivedAt(arrivedAt)
          .setArrivalWatermark(event.watermarkAtArrival())
          .setScoredAt(scoredAt)
          .setContract(contract)
          .setStateCutoff(cutoff)
          .setStateRevision(stateRevision)
          .setFeatures(Decision.sorted(scored.features))
          .setScore(scored.score)
          .setModelDigest(scorer.digest())
          .setPreprocessingDigest(preprocessor.digest())
          .setPolicyGeneration(generation)
          .setRevision(revision)
          .setSupersedes(supersedes)
          .setRevisedBy(revisedBy)
          .build();
    }

    /** Frees what no event arriving at or after watermark {@code w} can read (class comment). */
    private void prune(KeyState key, long w) {
      for (Applied x : key.applied) {
        if (x.time + 2 * range + lateness <= w) {
          key.freedEvents = key.freedEvents == null ? x.time : Math.max(key.freedEvents, x.time);
        }
      }
      for (Decided d : key.decided) {
        if (d.time() + range + lateness <= w) {
          key.freedDecisions =
              key.freedDecisions == null ? d.time() : Math.max(key.freedDecisions, d.time());
        }
      }
      key.applied.removeIf(x -> x.time + 2 * range + lateness <= w);
      key.decided.removeIf(d -> d.time() + range + lateness <= w);
    }

    /**
     * Why {@code event}'s first decision, reading its key's events after {@code t - range}, could
     * not be complete — an event the key freed (all at or before its freed horizon) may be one of
     * them — or null when it can.
     */
    private @Nullable String belowHorizon(TimedEvent event, KeyState key) {
      long t = event.envelope().eventTime().getMillis();
      if (key.freedEvents == null
          || t - range >= key.freedEvents
          || planted == PlantedDefect.SCORE_IGNORES_FREED_HORIZON) {
        return null;
      }
      return "its features over ("
          + new Instant(t - range)
          + ", "
          + (contract == FeatureContract.LATEST_AVAILABLE ? "now" : new Instant(t))
          + "] reach below its key's freed horizon "
          + new Instant(key.freedEvents)
          + whyFreed(event);
    }

    /**
     * How the state below the horizon came to be freed while {@code event}'s partition could still
     * deliver. State is freed by the stage's watermark, under either contract (ADR 0112), which
     * only passes a partition's own while that partition is idle (§2.7, ADR 0050).
     */
    private String whyFreed(TimedEvent event) {
      Instant a = event.watermarkAtArrival();
      return ": state freed while its partition's watermark ("
          + (a == null ? "not yet defined" : a)
          + ") was behind, idle";
    }

    /**
     * Why a late event's answer could not be complete — a decision it would change was freed (at or
     * before the key's horizon of decisions), or, revising, a revision would read below the freed
     * horizon of events — or null when it can. {@code lowest}: the earliest time of a decision it
     * reaches; {@code affected}: the decisions still kept that it reaches.
     */
    private @Nullable String belowHorizon(
        TimedEvent event, long lowest, List<Decided> affected, KeyState key) {
      Long reads = null;
      for (Decided d : affected) {
        reads = reads == null ? d.time() - range : Math.min(reads, d.time() - range);
      }
      boolean missing = key.freedDecisions != null && key.freedDecisions >= lowest;
      boolean unread =
          lateAction == LateAction.REVISE
              && reads != null
              && key.freedEvents != null
              && reads < key.freedEvents;
      if ((!missing && !unread) || planted == PlantedDefect.SCORE_IGNORES_FREED_HORIZON) {
        return null;
      }
      return "the decisions it would change, from "
          + new Instant(lowest)
          + (missing
              ? ", reach below its key's freed horizon of decisions "
                  + new Instant(key.freedDecisions)
              : ", read below its key's freed horizon " + new Instant(key.freedEvents))
          + whyFreed(event);
    }

    /** An event, not late, whose decision would claim state that was freed (ADR 0050). */
    private void reconcileBelowHorizon(
        TimedEvent event, String reason, KeyState key, MultiOutputReceiver out) {
      belowHorizon.inc();
      reconciledBelowHorizon.inc(); // neither decided nor late: its own count (ADR 0050)
      Envelope e = event.envelope();
      out.get(tags.reconciled)
          .outputWithTimestamp(
              UnscoredLateEvent.of(
                  model,
                  keyOf(e.record()),
                  e.record(),
                  idOf(e),
                  e.partition(),
                  e.offset(),
                  e.eventTime(),
                  event.watermarkAtArrival(),
                  LateAction.RECONCILE,
                  true,
                  List.of(),
                  reason),
              e.eventTime());
    }

    private static void write(
        KeyState key,
        ValueState<ArrayList<Applied>> applied,
        ValueState<ArrayList<Decided>> decided,
        ValueState<ArrayList<TimedEvent>> awaiting,
        ValueState<Long> revision,
        ValueState<ArrayList<Long>> freed) {
      if (key.applied.isEmpty()) {
        applied.clear();
      } else {
        applied.write(key.applied);
      }
      if (key.decided.isEmpty()) {
        decided.clear();
      } else {
        decided.write(key.decided);
      }
      if (key.awaiting.isEmpty()) {
        awaiting.clear();
      } else {
        awaiting.write(key.awaiting);
      }
      revision.write(key.revision);
      ArrayList<Long> horizons = key.freed();
      if (horizons != null) {
        freed.write(horizons);
      }
    }

    /** Its arrival clock; only read once {@code apply} has dead-lettered a missing one. */
    private Instant arrivedAt(Envelope e) {
      Instant at = e.arrivalTime(arrivalColumn);
      return at == null ? e.ingestTime() : at;
    }

    private Row keyOf(Row record) {
      Row.Builder b = Row.withSchema(keySchema);
      for (String k : keyColumns) {
        b.addValue(record.getValue(k));
      }
      return b.build();
    }

    @Override
    @SuppressWarnings("deprecation") // decisions are stamped with their scoring time, maybe behind
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }
  }
}

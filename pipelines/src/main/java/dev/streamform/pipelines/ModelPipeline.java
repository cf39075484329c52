package dev.streamform.pipelines;

import dev.streamform.pipelines.kafka.ModelSinks;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.DecisionResult;
import dev.streamform.transforms.decisions.UnscoredLateEvent;
import dev.streamform.transforms.dedup.DedupResult;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The one place a model's pipeline is built between its source and its sinks, whatever the source
 * (a Kafka topic, files of JSON lines) and the sinks (topics, files, a database): the source's
 * records get their event time ({@link EventTimeExtraction}; arrival time for a source without
 * one), are judged by the given clock, and go through the model's changelog or, for a windowed
 * model, its windows ({@link DeclaredModel#changelog}, {@link DeclaredModel#windows()}), or for a
 * scoring model its decisions (the WHERE, then {@link DeclaredModel#scoreEvents()}, as a fixture
 * runs them). The outputs come back as JSON keys and values in the form {@link ModelSinks}
 * documents.
 *
 * <p>A source with {@code event_id} gets {@link DeclaredModel#deduplicate()} right after the clock:
 * repeats within the horizon go to {@link Outputs#duplicates()}, conflicts to the quarantine.
 *
 * <p>Guarantees: every record the source read is in exactly one place — the output (an applied
 * event; a WHERE may select it away), the late output, the duplicates, or the quarantine (the
 * source's own, passed in, the extraction's: no usable event time, and conflicting repeats).
 */
public final class ModelPipeline {
  private ModelPipeline() {}

  /** The outputs of a model, as JSON keys and values, and the names of their sinks. */
  public static final class Outputs {
    private final ModelSinks sinks;
    private final PCollection<KV<String, String>> records;
    private final PCollection<KV<String, String>> late;
    private final PCollection<KV<String, String>> quarantined;
    private final @Nullable PCollection<KV<String, String>> duplicates;
    private final @Nullable PCollection<KV<String, String>> reconciled;
    private final @Nullable PCollection<Decision> decisions;
    private final @Nullable PCollection<UnscoredLateEvent> reconciliations;

    Outputs(
        ModelSinks sinks,
        PCollection<KV<String, String>> records,
        PCollection<KV<String, String>> late,
        PCollection<KV<String, String>> quarantined,
        @Nullable PCollection<KV<String, String>> duplicates,
        @Nullable PCollection<KV<String, String>> reconciled,
        @Nullable PCollection<Decision> decisions,
        @Nullable PCollection<UnscoredLateEvent> reconciliations) {
      this.sinks = sinks;
      this.reconciliations = reconciliations;
      this.records = records;
      this.late = late;
      this.quarantined = quarantined;
      this.duplicates = duplicates;
      this.reconciled = reconciled;
      this.decisions = decisions;
    }

    /**
     * A scoring model's late events sent to reconciliation ({@link ModelSinks#reconcileTopic()});
     * null for other models.
     */
    public @Nullable PCollection<KV<String, String>> reconciled() {
      return reconciled;
    }

    /**
     * A scoring model's late events routed {@code reconciled} (for a reconcile queue); else null.
     */
    public @Nullable PCollection<UnscoredLateEvent> reconciliations() {
      return reconciliations;
    }

    /** A scoring model's decisions as {@link Decision}s (for a decision ledger); else null. */
    public @Nullable PCollection<Decision> decisions() {
      return decisions;
    }

    public ModelSinks sinks() {
      return sinks;
    }

    /**
     * The changelog of an upsert model, a windowed model's previews, revisions and finals, or a
     * scoring model's decisions.
     */
    public PCollection<KV<String, String>> records() {
      return records;
    }

    /**
     * Late events (upsert), events too late for a window (windowed): one row per refusal; or a
     * scoring model's late events routed {@code ignored} or {@code revising}.
     */
    public PCollection<KV<String, String>> late() {
      return late;
    }

    /**
     * Records that could not be processed, each with its reason; with {@code event_id}, also the
     * conflicts (a repeated id with another payload); for a scoring model also the events
     * dead-lettered for clock skew (its dead letters).
     */
    public PCollection<KV<String, String>> quarantined() {
      return quarantined;
    }

    /**
     * Events dropped as duplicates (the same {@code event_id} and payload again, within {@code
     * duplicates_within}); null when the source declares no {@code event_id}, whose pipeline has no
     * such step.
     */
    public @Nullable PCollection<KV<String, String>> duplicates() {
      return duplicates;
    }
  }

  /**
   * Builds the model's pipeline on {@code records} (its source's records and punctuations at their
   * partition and offset), judged by {@code clock}; {@code unreadable} is the source's own
   * quarantine, already as JSON keys and values. With {@code appliedOnArrival} an upsert model
   * applies events as they arrive ({@link DeclaredModel#changelog(boolean)}) — unless its source
   * declares {@code event_id}: after the duplicate detection (keyed by id) it applies them in log
   * order whatever the runner; a windowed model's revisions also go to {@code revisionSink} when
   * one is given.
   */
  public static Outputs build(
      DeclaredModel model,
      PCollection<SourceRecord> records,
      PCollection<KV<String, String>> unreadable,
      SourceClock clock,
      boolean appliedOnArrival,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink) {
    SourceDeclaration source = model.source();
    Schema schema = model.recordSchema();
    ModelSinks sinks = ModelSinks.of(model);
    PCollectionList<KV<String, String>> quarantine = PCollectionList.of(unreadable);
    PCollection<Envelope> envelopes;
    if (source.hasEventTime()) {
      ExtractionResult extracted =
          records.apply("EventTime", EventTimeExtraction.from(source.eventTime().get()));
      envelopes = extracted.events();
      quarantine =
          quarantine.and(
              extracted
                  .quarantined()
                  .apply(
                      "NoEventTime",
                      MapElements.into(kvs())
                          .via((BadRecord bad) -> sinks.eventTimeRecord(bad, schema))));
    } else {
      envelopes =
          records
              .apply(
                  "ArrivalTime",
                  MapElements.into(TypeDescriptor.of(Envelope.class))
                      .via(
                          (SourceRecord r) ->
                              r.isWatermark()
                                  ? Envelope.punctuation(r)
                                  : Envelope.event(r, r.ingestTime())))
              .setCoder(EnvelopeCoder.of(schema));
    }
    KvCoder<String, String> json = KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of());
    Dedup dedup = new Dedup();
    PCollection<KV<String, String>> output;
    PCollection<KV<String, String>> late;
    PCollection<KV<String, String>> reconciled = null;
    PCollection<Decision> decided = null;
    PCollection<UnscoredLateEvent> toReconcile = null;
    if (model.decides()) {
      // the clock keeps late events: the decisions' lateness judges them (docs/semantics.md §11);
      // the WHERE filters before scoring, as in a fixture
      PCollection<TimedEvent> events =
          deduplicated(envelopes.apply("Clock", clock).events(), model, sinks, schema, dedup);
      if (model.where().isPresent()) {
        events = events.apply("Where", model.where().get());
      }
      DecisionResult scored = events.apply("Model", model.scoreEvents());
      decided = scored.decisions();
      toReconcile = scored.reconciliations();
      output = decided.apply("DecisionRecords", MapElements.into(kvs()).via(sinks::decisionRecord));
      late =
          PCollectionList.of(scored.ignored())
              .and(scored.revising())
              .apply("LateEvents", Flatten.pCollections())
              .apply("LateRecords", MapElements.into(kvs()).via(sinks::unscoredRecord));
      reconciled =
          scored
              .reconciliations()
              .apply("ReconcileRecords", MapElements.into(kvs()).via(sinks::unscoredRecord))
              .setCoder(json);
      quarantine =
          quarantine.and(
              scored
                  .deadLetters()
                  .apply(
                      "DeadLetterRecords", MapElements.into(kvs()).via(sinks::deadLetterRecord)));
    } else if (model.windowed()) {
      // the clock keeps late events for a windowed model: its late() stays empty
      WindowedResult windows =
          deduplicated(envelopes.apply("Clock", clock).events(), model, sinks, schema, dedup)
              .apply("Model", model.windows());
      output =
          windows
              .revisions()
              .apply("WindowRecords", MapElements.into(kvs()).via(sinks::windowRecord));
      late =
          windows
              .tooLate()
              .apply("TooLateRecords", MapElements.into(kvs()).via(sinks::tooLateRecord));
      if (revisionSink != null) {
        // alongside the window records: the revisions also land in the revision ledger
        // (docs/semantics.md §8)
        windows.revisions().apply("Revisions to the database", revisionSink);
      }
    } else {
      ClockResult clocked = envelopes.apply("Clock", clock);
      // On arrival is right only where each key's order from the clock to the changelog is kept.
      // The duplicate detection is keyed by id and releases each id's events by its own timer, so
      // after it a key's events arrive in no fixed order (a Flink cluster applied them out of log
      // order at parallelism 2): the changelog then applies them in log order, by their stamps.
      boolean onArrival = appliedOnArrival && model.deduplicate().isEmpty();
      PCollection<ChangelogRecord> changelog =
          deduplicated(clocked.events(), model, sinks, schema, dedup)
              .apply("Model", model.changelog(onArrival));
      output =
          changelog.apply("ChangelogRecords", MapElements.into(kvs()).via(sinks::changelogRecord));
      late = clocked.late().apply("LateRecords", MapElements.into(kvs()).via(sinks::lateRecord));
    }
    if (dedup.conflicts != null) {
      quarantine = quarantine.and(dedup.conflicts);
    }
    return new Outputs(
        sinks,
        output.setCoder(json),
        late.setCoder(json),
        quarantine.apply("Quarantine", Flatten.pCollections()).setCoder(json),
        dedup.duplicates == null ? null : dedup.duplicates.setCoder(json),
        reconciled,
        decided,
        toReconcile);
  }

  /** What the duplicate detection put aside, as JSON keys and values (null without it). */
  private static final class Dedup {
    PCollection<KV<String, String>> duplicates;
    PCollection<KV<String, String>> conflicts;
  }

  /**
   * {@code events} without the duplicates, when the source declares {@code event_id}: the
   * duplicates and conflicts are written into {@code out}; the events unchanged otherwise.
   */
  private static PCollection<TimedEvent> deduplicated(
      PCollection<TimedEvent> events,
      DeclaredModel model,
      ModelSinks sinks,
      Schema schema,
      Dedup out) {
    if (model.deduplicate().isEmpty()) {
      return events;
    }
    DedupResult result = events.apply("Duplicates", model.deduplicate().get());
    out.duplicates =
        result
            .duplicates()
            .apply("DuplicateRecords", MapElements.into(kvs()).via(sinks::duplicateRecord));
    out.conflicts =
        result
            .conflicts()
            .apply(
                "ConflictRecords",
                MapElements.into(kvs()).via((BadRecord bad) -> sinks.conflictRecord(bad, schema)));
    return result.events();
  }

  private static TypeDescriptor<KV<String, String>> kvs() {
    return TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings());
  }
}

package dev.streamform.planner;

import com.google.auto.value.AutoValue;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.transforms.SchemaForm;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.dedup.DedupResult;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import dev.streamform.transforms.windows.WindowRevision;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A declared model's whole pipeline between its source and its sinks, as one composite: the one
 * chain that {@code run} (files and Kafka), fixtures, fuzz, benchmarks and {@code explain} apply,
 * so what is tested is what runs (docs/decisions/0057).
 *
 * <p>The source's records get their event time ({@link EventTimeExtraction}; arrival time for a
 * source without one), a record without a value for one of the model's key columns quarantined
 * first, as a file's or a topic's decoder does; then they are judged by the clock; with {@code
 * event_id} the source's {@link DeclaredModel#deduplicate()} follows; then the model: its changelog
 * ({@link DeclaredModel#changelog(boolean)}), or its WHERE and windows ({@link
 * DeclaredModel#windowAggregate()}), or its WHERE and decisions ({@link
 * DeclaredModel#scoreEvents()}). The outputs come back as {@link ModelOutputs}: JSON keys and
 * values in the form {@link ModelSinks} documents, positions as fields.
 *
 * <p>Options: {@link #withClock} (default {@link DeclaredModel#clock()}: a file or a fixture; a
 * Kafka log gives {@link DeclaredModel#logClock()}), {@link #withAppliedOnArrival} (an upsert or
 * windowed model applies events as they arrive, on a runner that keeps each key's order), {@link
 * #withRevisionSink} (a windowed model's revisions also go there, docs/semantics.md §8).
 */
@AutoValue
public abstract class DeclaredPipeline extends PTransform<PCollection<SourceRecord>, ModelOutputs> {
  /**
   * The step that reads each record's event time from the source's column, after quarantining a
   * record without a value for a key column (ADR 0088), before the clock and the WHERE.
   */
  public static final String EVENT_TIME = "EventTime";

  /** The same step for a source without an event-time column: each record's arrival time. */
  public static final String ARRIVAL_TIME = "ArrivalTime";

  /** The step that judges the source's records by its clock (the manifest's Source node). */
  public static final String CLOCK = "Clock";

  /** The step of the duplicate detection (the manifest's Duplicates node), with the suffix. */
  public static final String DUPLICATES = "Duplicates";

  /** The step of the model's WHERE (the manifest's Filter node). */
  public static final String WHERE = "Where";

  /** The model's keyed stage: changelog, windows or decisions (the manifest's Aggregate node). */
  public static final String MODEL = "Model";

  abstract DeclaredModel model();

  abstract @Nullable SourceClock clock();

  abstract boolean appliedOnArrival();

  abstract @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink();

  abstract String keyedStageSuffix();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setModel(DeclaredModel model);

    abstract Builder setClock(@Nullable SourceClock clock);

    abstract Builder setAppliedOnArrival(boolean appliedOnArrival);

    abstract Builder setRevisionSink(@Nullable PTransform<PCollection<WindowRevision>, ?> sink);

    abstract Builder setKeyedStageSuffix(String suffix);

    abstract DeclaredPipeline build();
  }

  /** {@code model}'s pipeline, judged by {@link DeclaredModel#clock()}, in log order. */
  public static DeclaredPipeline of(DeclaredModel model) {
    return new AutoValue_DeclaredPipeline.Builder()
        .setModel(model)
        .setAppliedOnArrival(false)
        .setKeyedStageSuffix("")
        .build();
  }

  /** Judged by {@code clock} (a Kafka log's, or a fixture's with its partitions declared). */
  public DeclaredPipeline withClock(SourceClock clock) {
    return toBuilder().setClock(clock).build();
  }

  /**
   * An upsert model applies events as they arrive ({@link DeclaredModel#changelog(boolean)}), for a
   * runner that keeps each key's order between stages (Flink). With {@code event_id} only when its
   * ids are scoped by the model's key ({@code event_id_scope: key}): the duplicate detection before
   * it then judges on arrival too, keyed by that key ({@link
   * dev.streamform.transforms.dedup.Deduplicate#appliedOnArrival()}), so a key's events keep their
   * order from the clock to the changelog. With source-wide ids the detection is keyed by id and
   * after it a key's events arrive in no fixed order: the changelog applies them in log order. A
   * windowed model's windows apply on arrival what log order would apply the same way ({@link
   * dev.streamform.transforms.windows.WindowedAggregate#appliedOnArrival()}, ADR 0078), with
   * source-wide ids only when it has no {@code event_id}; a scoring model applies in log order
   * regardless.
   */
  public DeclaredPipeline withAppliedOnArrival(boolean appliedOnArrival) {
    return toBuilder().setAppliedOnArrival(appliedOnArrival).build();
  }

  /** A windowed model's revisions also go to {@code sink} (the revision ledger). */
  public DeclaredPipeline withRevisionSink(PTransform<PCollection<WindowRevision>, ?> sink) {
    return toBuilder().setRevisionSink(sink).build();
  }

  /**
   * The keyed stages (duplicate detection, model) named with {@code suffix} appended: on Flink,
   * operators a savepoint does not know. Only for a planted defect of a restore (fixtures).
   */
  public DeclaredPipeline withKeyedStageSuffix(String suffix) {
    return toBuilder().setKeyedStageSuffix(suffix).build();
  }

  /** The model this pipeline runs. */
  public DeclaredModel declaredModel() {
    return model();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder.add(DisplayData.item("model", model().model().name()).withLabel("Model"));
  }

  @Override
  public ModelOutputs expand(PCollection<SourceRecord> records) {
    DeclaredModel model = model();
    SourceDeclaration source = model.source();
    SchemaForm form = SchemaForm.of(model.recordSchema()); // what the record functions keep
    ModelSinks sinks = ModelSinks.of(model);
    SourceClock clock = clock() == null ? model.clock() : clock();
    String suffix = keyedStageSuffix();
    KvCoder<String, String> json = KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of());
    PCollectionList<KV<String, String>> quarantine = PCollectionList.empty(records.getPipeline());
    PCollection<Envelope> envelopes;
    // a key column without a value is quarantined first, as a file's or a topic's decoder does
    // (ADR 0088), in the same step that reads the event time (or the arrival time)
    ExtractionResult extracted =
        records.apply(
            source.hasEventTime() ? EVENT_TIME : ARRIVAL_TIME,
            (source.hasEventTime()
                    ? EventTimeExtraction.from(source.eventTime().get())
                    : EventTimeExtraction.atArrival())
                .withKeyColumns(model.keyColumns()));
    envelopes = extracted.events();
    quarantine =
        quarantine.and(
            extracted
                .quarantined()
                .apply(
                    source.hasEventTime() ? "NoEventTime" : "NoKeyValue",
                    MapElements.into(kvs())
                        .via((BadRecord bad) -> sinks.eventTimeRecord(bad, form.schema()))));
    // the clock keeps late events for a windowed or scoring model (model.clock(), logClock()):
    // the windows or the decisions' lateness judge them (docs/semantics.md §6, §11)
    ClockResult clocked = envelopes.apply(CLOCK, clock);
    PCollection<TimedEvent> arrivals = clocked.events();
    PCollection<KV<String, String>> idleMarkers =
        clocked
            .idleMarkers()
            .apply("IdleMarkerRecords", MapElements.into(kvs()).via(ModelSinks::idleRecord))
            .setCoder(json);
    PCollection<KV<String, String>> duplicates = null;
    boolean onArrival =
        appliedOnArrival()
            && model.kind().appliesOnArrival()
            && model.deduplicate().map(d -> !d.scope().isEmpty()).orElse(true);
    if (model.deduplicate().isPresent()) {
      Deduplicate detection = model.deduplicate().get();
      DedupResult dedup =
          arrivals.apply(DUPLICATES + suffix, onArrival ? detection.appliedOnArrival() : detection);
      arrivals = dedup.events();
      duplicates =
          dedup
              .duplicates()
              .apply("DuplicateRecords", MapElements.into(kvs()).via(sinks::duplicateRecord))
              .setCoder(json);
      quarantine =
          quarantine.and(
              dedup
                  .conflicts()
                  .apply(
                      "ConflictRecords",
                      MapElements.into(kvs())
                          .via((BadRecord bad) -> sinks.refusedRecord(bad, form.schema()))));
    }
    ModelKind.Applied applied =
        model
            .kind()
            .apply(
                new ModelKind.Input(
                    model, sinks, clocked, arrivals, suffix, onArrival, revisionSink()));
    PCollection<KV<String, String>> reconciled = applied.reconciled();
    if (reconciled != null) {
      reconciled.setCoder(json);
    }
    if (applied.quarantine() != null) {
      quarantine = quarantine.and(applied.quarantine());
    }
    return new ModelOutputs(
        records.getPipeline(),
        sinks,
        applied.output().setCoder(json),
        applied.late().setCoder(json),
        quarantine.apply("Quarantine", Flatten.pCollections()).setCoder(json),
        duplicates,
        reconciled,
        idleMarkers,
        arrivals,
        applied.selected(),
        applied.changelog(),
        applied.revisions(),
        applied.scored());
  }

  private static TypeDescriptor<KV<String, String>> kvs() {
    return TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings());
  }
}

package dev.streamform.pipelines;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.DeclaredPipeline;
import dev.streamform.planner.ModelOutputs;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.UnscoredLateEvent;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.windows.WindowRevision;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A model's pipeline between a source and its sinks, for {@code run} (files and Kafka): it applies
 * the model's one composite, {@link DeclaredPipeline} (the chain fixtures, fuzz and benchmarks
 * apply too), under {@link #NAME}, and joins the source's own quarantine to the model's. The
 * outputs come back as JSON keys and values in the form {@link ModelSinks} documents.
 *
 * <p>Guarantees: every record the source read is in exactly one place — the output (an applied
 * event; a WHERE may select it away), the late output, the duplicates, or the quarantine (the
 * source's own, passed in, the extraction's: no usable event time, and conflicting repeats).
 */
public final class ModelPipeline {
  /** The name the model's composite is applied under: its steps' names start with it. */
  public static final String NAME = "Model pipeline";

  private ModelPipeline() {}

  /**
   * The composite's outputs ({@link ModelOutputs}), with the source's own quarantine joined to the
   * model's: every accessor but {@link #quarantined()} is the composite's.
   */
  public static final class Outputs {
    private final ModelOutputs model;
    private final PCollection<KV<String, String>> quarantined;

    Outputs(ModelOutputs model, PCollection<KV<String, String>> quarantined) {
      this.model = model;
      this.quarantined = quarantined;
    }

    /** See {@link ModelOutputs#reconciled()}. */
    public @Nullable PCollection<KV<String, String>> reconciled() {
      return model.reconciled();
    }

    /** See {@link ModelOutputs#reconciliations()}. */
    public @Nullable PCollection<UnscoredLateEvent> reconciliations() {
      return model.reconciliations();
    }

    /** See {@link ModelOutputs#decisions()}. */
    public @Nullable PCollection<Decision> decisions() {
      return model.decisions();
    }

    public ModelSinks sinks() {
      return model.sinks();
    }

    /** See {@link ModelOutputs#records()}. */
    public PCollection<KV<String, String>> records() {
      return model.records();
    }

    /** See {@link ModelOutputs#changelog()}. */
    public @Nullable PCollection<ChangelogRecord> changelog() {
      return model.changelog();
    }

    /** See {@link ModelOutputs#revisions()}. */
    public @Nullable PCollection<WindowRevision> revisions() {
      return model.revisions();
    }

    /** See {@link ModelOutputs#late()}. */
    public PCollection<KV<String, String>> late() {
      return model.late();
    }

    /**
     * The source's own quarantine (records it could not read) and the model's ({@link
     * ModelOutputs#quarantine()}), as one collection: one quarantine sink per model.
     */
    public PCollection<KV<String, String>> quarantined() {
      return quarantined;
    }

    /** See {@link ModelOutputs#duplicates()}. */
    public @Nullable PCollection<KV<String, String>> duplicates() {
      return model.duplicates();
    }

    /** See {@link ModelOutputs#idleMarkers()}. */
    public PCollection<KV<String, String>> idleMarkers() {
      return model.idleMarkers();
    }
  }

  /**
   * Builds the model's pipeline on {@code records} (its source's records and punctuations at their
   * partition and offset), judged by {@code clock}; {@code unreadable} is the source's own
   * quarantine, already as JSON keys and values. With {@code appliedOnArrival} an upsert model
   * applies events as they arrive ({@link DeclaredModel#changelog(boolean)}); with {@code event_id}
   * only under {@code event_id_scope: key}, where its duplicate detection judges them on arrival
   * too, keyed by the model's key, so each key's order from the clock is kept (ADR 0073), and in
   * log order otherwise; a windowed model's revisions also go to {@code revisionSink} when one is
   * given.
   */
  public static Outputs build(
      DeclaredModel model,
      PCollection<SourceRecord> records,
      PCollection<KV<String, String>> unreadable,
      SourceClock clock,
      boolean appliedOnArrival,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink) {
    DeclaredPipeline pipeline =
        DeclaredPipeline.of(model).withClock(clock).withAppliedOnArrival(appliedOnArrival);
    if (revisionSink != null) {
      pipeline = pipeline.withRevisionSink(revisionSink);
    }
    ModelOutputs out = records.apply(NAME, pipeline);
    // the source's own quarantine joins the model's: one quarantine sink per model
    PCollection<KV<String, String>> quarantined =
        PCollectionList.of(unreadable)
            .and(out.quarantine())
            .apply("Source and model quarantine", Flatten.pCollections())
            .setCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of()));
    return new Outputs(out, quarantined);
  }
}

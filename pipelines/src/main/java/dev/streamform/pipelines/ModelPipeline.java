package dev.streamform.pipelines;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.DeclaredPipeline;
import dev.streamform.planner.ModelOutputs;
import dev.streamform.planner.sinks.ModelSinks;
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
    return new Outputs(
        out.sinks(),
        out.records(),
        out.late(),
        quarantined,
        out.duplicates(),
        out.reconciled(),
        out.decisions(),
        out.reconciliations());
  }
}

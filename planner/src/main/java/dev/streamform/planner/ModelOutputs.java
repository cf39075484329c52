package dev.streamform.planner;

import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.DecisionResult;
import dev.streamform.transforms.decisions.UnscoredLateEvent;
import dev.streamform.transforms.windows.WindowRevision;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What {@link DeclaredPipeline} gives back: the model's outputs as the JSON keys and values {@link
 * ModelSinks} documents (what {@code run} writes to topics or files, and what fixtures read), and
 * the typed collections they were rendered from, for the sinks that need them (a decision ledger, a
 * reconcile queue) and for fixtures that observe the model's input (arrivals, selection, state).
 *
 * <p>Every record the composite read is in exactly one of {@link #records()} (an applied event; a
 * WHERE may select it away), {@link #late()}, {@link #duplicates()} or {@link #quarantine()}.
 */
public final class ModelOutputs implements POutput {
  private final Pipeline pipeline;
  private final ModelSinks sinks;
  private final Map<TupleTag<?>, PValue> all = new LinkedHashMap<>();
  private final PCollection<KV<String, String>> records;
  private final PCollection<KV<String, String>> late;
  private final PCollection<KV<String, String>> quarantine;
  private final @Nullable PCollection<KV<String, String>> duplicates;
  private final @Nullable PCollection<KV<String, String>> reconciled;
  private final PCollection<KV<String, String>> idleMarkers;
  private final PCollection<TimedEvent> arrivals;
  private final PCollection<TimedEvent> selected;
  private final @Nullable PCollection<ChangelogRecord> changelog;
  private final @Nullable PCollection<WindowRevision> revisions;
  private final @Nullable DecisionResult scored;

  ModelOutputs(
      Pipeline pipeline,
      ModelSinks sinks,
      PCollection<KV<String, String>> records,
      PCollection<KV<String, String>> late,
      PCollection<KV<String, String>> quarantine,
      @Nullable PCollection<KV<String, String>> duplicates,
      @Nullable PCollection<KV<String, String>> reconciled,
      PCollection<KV<String, String>> idleMarkers,
      PCollection<TimedEvent> arrivals,
      PCollection<TimedEvent> selected,
      @Nullable PCollection<ChangelogRecord> changelog,
      @Nullable PCollection<WindowRevision> revisions,
      @Nullable DecisionResult scored) {
    this.pipeline = pipeline;
    this.sinks = sinks;
    this.records = put("records", records);
    this.late = put("late", late);
    this.quarantine = put("quarantine", quarantine);
    this.duplicates = put("duplicates", duplicates);
    this.reconciled = put("reconciled", reconciled);
    this.idleMarkers = put("idleMarkers", idleMarkers);
    this.arrivals = put("arrivals", arrivals);
    this.selected = selected == arrivals ? selected : put("selected", selected);
    this.changelog = put("changelog", changelog);
    this.revisions = put("revisions", revisions);
    this.scored = scored;
    if (scored != null) {
      all.putAll(scored.expand());
    }
  }

  private <T extends PValue> T put(String name, T value) {
    if (value != null) {
      all.put(new TupleTag<>(name), value);
    }
    return value;
  }

  /** The sinks' names (topics, files) and the renderer of these records. */
  public ModelSinks sinks() {
    return sinks;
  }

  /**
   * The model's own records: an upsert model's changelog, a windowed model's previews, revisions
   * and finals, or a scoring model's decisions.
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
   * Records that could not be processed, each with its reason and its place in the log as fields
   * ({@code partition}, {@code offset}): no usable event time, with {@code event_id} the conflicts,
   * an event whose int64 sum would overflow (ADR 0074), for a scoring model the dead letters. The
   * source's own unreadable records are not here: the source is not part of the composite.
   */
  public PCollection<KV<String, String>> quarantine() {
    return quarantine;
  }

  /** Events dropped as duplicates; null when the source declares no {@code event_id}. */
  public @Nullable PCollection<KV<String, String>> duplicates() {
    return duplicates;
  }

  /** A scoring model's late events sent to reconciliation; null for other models. */
  public @Nullable PCollection<KV<String, String>> reconciled() {
    return reconciled;
  }

  /**
   * The clock's idle markers ({@link ModelSinks#idleRecord}): a partition going idle or resuming,
   * naming its generation (docs/semantics.md §9.7); empty without {@code idle_after}. Not records
   * of the model: which items a marker falls between depends on processing time.
   */
  public PCollection<KV<String, String>> idleMarkers() {
    return idleMarkers;
  }

  /**
   * The events that reach the model (after the clock and the duplicate detection, before the
   * WHERE), each with its partition's watermark at its arrival.
   */
  public PCollection<TimedEvent> arrivals() {
    return arrivals;
  }

  /** The events the WHERE selects ({@link #arrivals()} for a model without one, or upsert). */
  public PCollection<TimedEvent> selected() {
    return selected;
  }

  /** An upsert model's changelog, as rendered into {@link #records()}; else null. */
  public @Nullable PCollection<ChangelogRecord> changelog() {
    return changelog;
  }

  /** A windowed model's records, as rendered into {@link #records()}; else null. */
  public @Nullable PCollection<WindowRevision> revisions() {
    return revisions;
  }

  /** A scoring model's outputs as the scoring stage gave them; else null. */
  public @Nullable DecisionResult scored() {
    return scored;
  }

  /** A scoring model's decisions (for a decision ledger); else null. */
  public @Nullable PCollection<Decision> decisions() {
    return scored == null ? null : scored.decisions();
  }

  /** A scoring model's late events routed {@code reconciled} (for a reconcile queue); else null. */
  public @Nullable PCollection<UnscoredLateEvent> reconciliations() {
    return scored == null ? null : scored.reconciliations();
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return all;
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}

package dev.streamform.planner;

import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.transforms.SchemaForm;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.decisions.DecisionResult;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
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
 * The kind of a declared model, one implementation per kind: an upsert model's {@link Changelog}, a
 * {@link Windowed} model, a {@link Scoring} model. Each applies its own keyed stage and record
 * shapes in the model's composite ({@link DeclaredPipeline}), in place of a branch on {@code
 * windowed()} / {@code decides()} there (issue 30).
 */
public abstract sealed class ModelKind
    permits ModelKind.Changelog, ModelKind.Windowed, ModelKind.Scoring {

  private final boolean keepsLateEvents;
  private final String description;
  private final String outputNote;
  private final String quarantineName;
  private final boolean revisionLedger;
  private final boolean decisionLedger;

  private ModelKind(
      boolean keepsLateEvents,
      String description,
      String outputNote,
      String quarantineName,
      boolean revisionLedger,
      boolean decisionLedger) {
    this.keepsLateEvents = keepsLateEvents;
    this.description = description;
    this.outputNote = outputNote;
    this.quarantineName = quarantineName;
    this.revisionLedger = revisionLedger;
    this.decisionLedger = decisionLedger;
  }

  /** The kind {@code model} declares: decisions, else a window, else a changelog. */
  static ModelKind of(DeclaredModel model) {
    if (model.decides()) {
      return new Scoring();
    }
    return model.windowed() ? new Windowed() : new Changelog();
  }

  /** What the composite's stage gets: the clock's output and the events after deduplication. */
  record Input(
      DeclaredModel model,
      ModelSinks sinks,
      ClockResult clocked,
      PCollection<TimedEvent> arrivals,
      String suffix,
      boolean appliedOnArrival,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink) {}

  /** What the kind's stage gives the composite's outputs; absent fields are null. */
  record Applied(
      PCollection<KV<String, String>> output,
      PCollection<KV<String, String>> late,
      @Nullable PCollection<KV<String, String>> reconciled,
      @Nullable PCollection<KV<String, String>> quarantine,
      PCollection<TimedEvent> selected,
      @Nullable PCollection<ChangelogRecord> changelog,
      @Nullable PCollection<WindowRevision> revisions,
      @Nullable DecisionResult scored) {}

  /** Applies the kind's keyed stage and turns its outputs into the sinks' records. */
  abstract Applied apply(Input in);

  /**
   * The source's duplicate detection as this kind's models apply it when the source declares {@code
   * event_id_scope: key}: ids of the source's whole log, but for an upsert model (ADR 0073).
   */
  Deduplicate scoped(Deduplicate sourceWide, DeclaredModel model) {
    return sourceWide;
  }

  /**
   * Whether the kind's stage applies events as they arrive where the runner keeps each key's order
   * ({@link DeclaredPipeline#withAppliedOnArrival}); an upsert model's and a windowed model's do.
   */
  boolean appliesOnArrival() {
    return false;
  }

  /**
   * Whether the source's clock keeps late events for this kind: the windows or the decisions'
   * lateness judge them (docs/semantics.md §6, §11); a changelog drops what its clock calls late.
   */
  public final boolean keepsLateEvents() {
    return keepsLateEvents;
  }

  /** The kind as an error message names it: {@code a scoring model (decisions:)}. */
  public final String description() {
    return description;
  }

  /** What the output topic carries, as {@code run} says it: {@code (window records)}, or empty. */
  public final String outputNote() {
    return outputNote;
  }

  /** What the kind calls its quarantine topic: a scoring model's holds dead letters. */
  public final String quarantineName() {
    return quarantineName;
  }

  /**
   * Whether the model's records are revisions kept in the revision ledger, under generations: what
   * {@code run --shadow} recomputes, {@code run --generation} names, {@code run --jdbc-url} records
   * and the ledger commands read. A windowed model's (docs/semantics.md §6).
   */
  public final boolean hasRevisionLedger() {
    return revisionLedger;
  }

  /**
   * Whether the model decides: one decision per event, kept in the decision ledger by {@code run
   * --jdbc-url} and replayed by {@code decisions show} and {@code replay-orders}. A scoring model's
   * (docs/semantics.md §11).
   */
  public final boolean hasDecisionLedger() {
    return decisionLedger;
  }

  /** The events the model reads: the WHERE filters before a window or a decision. */
  static PCollection<TimedEvent> where(Input in) {
    return in.model().where().isPresent()
        ? in.arrivals().apply(DeclaredPipeline.WHERE, in.model().where().get())
        : in.arrivals();
  }

  /**
   * The events the keyed stage refused (an int64 sum that would overflow, docs/semantics.md §2) as
   * quarantine rows, each with its reason naming the column.
   */
  static PCollection<KV<String, String>> refused(Input in, RefusedEvents refused) {
    ModelSinks sinks = in.sinks(); // the lambda keeps these, not the input's collections
    SchemaForm schema = SchemaForm.of(in.model().recordSchema());
    return refused
        .all("Refused")
        .apply(
            "RefusedRecords",
            MapElements.into(kvs()).via((BadRecord b) -> sinks.refusedRecord(b, schema.schema())));
  }

  static TypeDescriptor<KV<String, String>> kvs() {
    return TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings());
  }

  /** An upsert model: its changelog, in log order or (see below) as events arrive. */
  public static final class Changelog extends ModelKind {
    Changelog() {
      super(
          false, "an upsert model (no window: in streamform.yml)", "", "quarantine", false, false);
    }

    /**
     * Ids scoped by the model's key, so that the duplicate detection can be keyed by that key and,
     * on arrival, keep each key's order from the clock to the changelog (issue 31, ADR 0073).
     */
    @Override
    Deduplicate scoped(Deduplicate sourceWide, DeclaredModel model) {
      return sourceWide.withinKey(model.keyColumns());
    }

    @Override
    boolean appliesOnArrival() {
      return true;
    }

    @Override
    Applied apply(Input in) {
      // On arrival is right only where each key's order from the clock to the changelog is kept:
      // DeclaredPipeline asks for it only when the duplicate detection before it, if any, is keyed
      // by the same key and judges on arrival too, so a key's events keep one channel throughout.
      RefusedEvents refused = new RefusedEvents();
      PCollection<ChangelogRecord> changelog =
          in.arrivals()
              .apply(
                  DeclaredPipeline.MODEL + in.suffix(),
                  in.model().changelog(in.appliedOnArrival(), refused));
      PCollection<KV<String, String>> output =
          changelog.apply(
              "ChangelogRecords", MapElements.into(kvs()).via(in.sinks()::changelogRecord));
      PCollection<KV<String, String>> late =
          in.clocked()
              .late()
              .apply("LateRecords", MapElements.into(kvs()).via(in.sinks()::lateRecord));
      return new Applied(
          output, late, null, refused(in, refused), in.arrivals(), changelog, null, null);
    }
  }

  /** A windowed model: its revisions, and the events too late for their windows. */
  public static final class Windowed extends ModelKind {
    Windowed() {
      super(true, "a windowed model", " (window records)", "quarantine", true, false);
    }

    /**
     * Windows apply on arrival what log order would apply the same (WindowedAggregate's
     * appliedOnArrival): on-time and too-late events, and corrections of windows past revision 1.
     */
    @Override
    boolean appliesOnArrival() {
      return true;
    }

    @Override
    Applied apply(Input in) {
      PCollection<TimedEvent> selected = where(in);
      RefusedEvents refused = new RefusedEvents();
      WindowedAggregate aggregate = in.model().windowAggregate();
      WindowedResult windows =
          selected.apply(
              DeclaredPipeline.MODEL + in.suffix(),
              (in.appliedOnArrival() ? aggregate.appliedOnArrival() : aggregate)
                  .withBadRecordErrorHandler(refused));
      PCollection<WindowRevision> revisions = windows.revisions();
      PCollection<KV<String, String>> output =
          revisions.apply("WindowRecords", MapElements.into(kvs()).via(in.sinks()::windowRecord));
      PCollection<KV<String, String>> late =
          windows
              .tooLate()
              .apply("TooLateRecords", MapElements.into(kvs()).via(in.sinks()::tooLateRecord));
      if (in.revisionSink() != null) {
        // alongside the window records: the revisions also land in the revision ledger
        revisions.apply("Revisions to the database", in.revisionSink());
      }
      return new Applied(output, late, null, refused(in, refused), selected, null, revisions, null);
    }
  }

  /** A scoring model: one decision per event, the events it leaves unscored, its dead letters. */
  public static final class Scoring extends ModelKind {
    Scoring() {
      super(true, "a scoring model (decisions:)", " (decisions)", "dead letters", false, true);
    }

    @Override
    Applied apply(Input in) {
      PCollection<TimedEvent> selected = where(in);
      DecisionResult scored =
          selected.apply(DeclaredPipeline.MODEL + in.suffix(), in.model().scoreEvents());
      PCollection<KV<String, String>> output =
          scored
              .decisions()
              .apply("DecisionRecords", MapElements.into(kvs()).via(in.sinks()::decisionRecord));
      PCollection<KV<String, String>> late =
          PCollectionList.of(scored.ignored())
              .and(scored.revising())
              .apply("LateEvents", Flatten.pCollections())
              .apply("LateRecords", MapElements.into(kvs()).via(in.sinks()::unscoredRecord));
      PCollection<KV<String, String>> reconciled =
          scored
              .reconciliations()
              .apply("ReconcileRecords", MapElements.into(kvs()).via(in.sinks()::unscoredRecord));
      PCollection<KV<String, String>> deadLetters =
          scored
              .deadLetters()
              .apply(
                  "DeadLetterRecords", MapElements.into(kvs()).via(in.sinks()::deadLetterRecord));
      return new Applied(output, late, reconciled, deadLetters, selected, null, null, scored);
    }
  }
}

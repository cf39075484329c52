package dev.streamform.transforms.decisions;

import com.google.auto.value.AutoValue;
import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.transforms.Times;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One decision about one event, with everything needed to defend it (docs/semantics.md §11): the
 * event (id, partition, offset), its three clocks, the feature state it read ({@link
 * #stateCutoff()} and {@link #stateRevision()}), the model and preprocessing digests and the policy
 * generation.
 *
 * <p>A decision is never changed: a revision is a new decision with its own {@link #decisionId()},
 * {@link #revision()} {@code n + 1} and {@link #supersedes()} naming the decision it replaces (the
 * latest earlier decision about the same event).
 *
 * <p>{@code decision_id = H(["decision", model, event_id, partition, offset, occurred_at, contract,
 * state_cutoff, state_revision, model_digest, preprocessing_digest, policy_generation, revision,
 * supersedes])} with {@code H} the canonical SHA-256 of {@link RevisionIdentity}.
 */
@AutoValue
public abstract class Decision implements Serializable {

  public abstract String model();

  /** The key columns of the event, as the features are keyed. */
  public abstract Row key();

  /** The event's record. */
  public abstract Row event();

  public abstract String eventId();

  public abstract int partition();

  public abstract long offset();

  /** Occurrence: the event's time. */
  public abstract Instant occurredAt();

  /** Arrival: the arrival clock of the record (its arrival column, or its ingest time). */
  public abstract Instant arrivedAt();

  /**
   * Arrival in watermark terms: the partition's watermark before the event; null while undefined.
   */
  public abstract @Nullable Instant arrivalWatermark();

  /**
   * Scoring: the watermark at which the decision was made — under as of occurrence {@code
   * max(occurred_at, arrival watermark)}, for a revision the late event's arrival watermark, under
   * latest available the event's arrival watermark (its occurrence while undefined).
   */
  public abstract Instant scoredAt();

  public abstract FeatureContract contract();

  /**
   * The feature state's cutoff: features come from events that arrived while their partition's
   * watermark was below it (as of occurrence: the event's time; a revision: the late event's
   * arrival watermark, and the late event itself).
   */
  public abstract Instant stateCutoff();

  /** How many events the key's feature state had applied when this decision read it. */
  public abstract long stateRevision();

  /** The feature values read (feature name -> value; an empty sum is 0). */
  public abstract Map<String, Double> features();

  /** The score, rounded to 6 decimal places (half even). */
  public abstract double score();

  public abstract String modelDigest();

  public abstract String preprocessingDigest();

  public abstract int policyGeneration();

  /** 1 for an event's first decision, n + 1 for a revision. */
  public abstract int revision();

  /** The decision this one replaces; null for revision 1. */
  public abstract @Nullable String supersedes();

  /** The late event whose arrival caused this revision; null for revision 1. */
  public abstract @Nullable String revisedBy();

  public abstract String decisionId();

  /** {@code scored} (revision 1) or {@code revised}. */
  public String route() {
    return revision() == 1 ? "scored" : "revised";
  }

  /** The hashed identity fields, in the order of the class comment. */
  public static List<Object> identityOf(
      String model,
      String eventId,
      int partition,
      long offset,
      Instant occurredAt,
      FeatureContract contract,
      Instant stateCutoff,
      long stateRevision,
      String modelDigest,
      String preprocessingDigest,
      int policyGeneration,
      int revision,
      @Nullable String supersedes) {
    List<Object> fields = new ArrayList<>();
    fields.add("decision");
    fields.add(model);
    fields.add(eventId);
    fields.add((long) partition);
    fields.add(offset);
    fields.add(Times.toJava(occurredAt));
    fields.add(contract.declared());
    fields.add(Times.toJava(stateCutoff));
    fields.add(stateRevision);
    fields.add(modelDigest);
    fields.add(preprocessingDigest);
    fields.add((long) policyGeneration);
    fields.add((long) revision);
    fields.add(supersedes);
    return fields;
  }

  /** A copy of {@code features} that keeps a stable (name) order and is serializable. */
  static Map<String, Double> sorted(Map<String, Double> features) {
    return new TreeMap<>(features);
  }

  /** The decision as plain values by name, for ledgers, reports and fixture comparison. */
  public Map<String, Object> fields() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("decision_id", decisionId());
    m.put("route", route());
    m.put("event_id", eventId());
    m.put("partition", partition());
    m.put("offset", offset());
    m.put("occurred_at", occurredAt());
    m.put("arrived_at", arrivedAt());
    m.put("arrival_watermark", arrivalWatermark());
    m.put("scored_at", scoredAt());
    m.put("contract", contract().declared());
    m.put("state_cutoff", stateCutoff());
    m.put("state_revision", stateRevision());
    m.put("features", features());
    m.put("score", score());
    m.put("model_digest", modelDigest());
    m.put("preprocessing_digest", preprocessingDigest());
    m.put("policy_generation", policyGeneration());
    m.put("revision", revision());
    m.put("supersedes", supersedes());
    m.put("revised_by", revisedBy());
    return m;
  }

  public static Builder builder() {
    return new AutoValue_Decision.Builder();
  }

  /** Builds a decision; {@link #build()} computes its id. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setModel(String model);

    public abstract Builder setKey(Row key);

    public abstract Builder setEvent(Row event);

    public abstract Builder setEventId(String eventId);

    public abstract Builder setPartition(int partition);

    public abstract Builder setOffset(long offset);

    public abstract Builder setOccurredAt(Instant occurredAt);

    public abstract Builder setArrivedAt(Instant arrivedAt);

    public abstract Builder setArrivalWatermark(@Nullable Instant arrivalWatermark);

    public abstract Builder setScoredAt(Instant scoredAt);

    public abstract Builder setContract(FeatureContract contract);

    public abstract Builder setStateCutoff(Instant stateCutoff);

    public abstract Builder setStateRevision(long stateRevision);

    public abstract Builder setFeatures(Map<String, Double> features);

    public abstract Builder setScore(double score);

    public abstract Builder setModelDigest(String digest);

    public abstract Builder setPreprocessingDigest(String digest);

    public abstract Builder setPolicyGeneration(int generation);

    public abstract Builder setRevision(int revision);

    public abstract Builder setSupersedes(@Nullable String supersedes);

    public abstract Builder setRevisedBy(@Nullable String revisedBy);

    abstract Builder setDecisionId(String id);

    abstract Decision autoBuild();

    abstract String model();

    abstract String eventId();

    abstract int partition();

    abstract long offset();

    abstract Instant occurredAt();

    abstract FeatureContract contract();

    abstract Instant stateCutoff();

    abstract long stateRevision();

    abstract String modelDigest();

    abstract String preprocessingDigest();

    abstract int policyGeneration();

    abstract int revision();

    abstract @Nullable String supersedes();

    public Decision build() {
      setDecisionId(
          RevisionIdentity.hash(
              identityOf(
                  model(),
                  eventId(),
                  partition(),
                  offset(),
                  occurredAt(),
                  contract(),
                  stateCutoff(),
                  stateRevision(),
                  modelDigest(),
                  preprocessingDigest(),
                  policyGeneration(),
                  revision(),
                  supersedes())));
      return autoBuild();
    }
  }
}

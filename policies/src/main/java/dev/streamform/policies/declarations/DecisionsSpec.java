package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code decisions:} of a scoring model (docs/semantics.md §11): the model's query gives the
 * features (its aggregates, per key, over the trailing event-time range {@link #featuresOver()});
 * every event of its source is scored by a {@link #scorer()} class or a declared {@link #linear()}
 * model, under a feature {@link #contract()}, with a bounded {@link #lateness()} and the {@link
 * #lateAction()} for events beyond it. Immutable.
 */
@AutoValue
public abstract class DecisionsSpec {

  /** Which feature state a decision reads. */
  public enum Contract {
    AS_OF_OCCURRENCE,
    LATEST_AVAILABLE
  }

  /** What happens to an event beyond the lateness. */
  public enum LateAction {
    IGNORE,
    REVISE,
    RECONCILE
  }

  /** The trailing range of the features: {@code (t - range, t]}. */
  public abstract Duration featuresOver();

  /** A {@code Scorer} class with a public no-argument constructor, when declared by class. */
  public abstract Optional<String> scorer();

  /** The linear model file, as written (relative to the project), when declared by file. */
  public abstract Optional<String> linearFile();

  /** The linear model read from {@link #linearFile()}, once the project was loaded. */
  public abstract Optional<LinearModel> linear();

  public abstract Contract contract();

  /**
   * Events whose partition watermark at arrival is {@code > t + lateness} are late (equal is on
   * time, ADR 0198).
   */
  public abstract Duration lateness();

  public abstract LateAction lateAction();

  /** Whether late events are applied to feature state (decisions already made never change). */
  public abstract boolean lateUpdatesState();

  /** The largest allowed lead of event time over arrival. */
  public abstract Optional<Duration> maxClockSkew();

  /** The timestamp column giving the record's arrival; the record's ingest time when absent. */
  public abstract Optional<String> arrival();

  public abstract Builder toBuilder();

  /** Defaults: as of occurrence, lateness 0s, late events ignored and not applied to state. */
  public static Builder builder() {
    return new AutoValue_DecisionsSpec.Builder()
        .setContract(Contract.AS_OF_OCCURRENCE)
        .setLateness(Duration.ZERO)
        .setLateAction(LateAction.IGNORE)
        .setLateUpdatesState(false);
  }

  public DecisionsSpec withLinear(LinearModel model) {
    return toBuilder().setLinear(model).build();
  }

  /** Builds a {@link DecisionsSpec}. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setFeaturesOver(Duration range);

    public abstract Builder setScorer(String className);

    public abstract Builder setLinearFile(String file);

    public abstract Builder setLinear(LinearModel model);

    public abstract Builder setContract(Contract contract);

    public abstract Builder setLateness(Duration lateness);

    public abstract Builder setLateAction(LateAction action);

    public abstract Builder setLateUpdatesState(boolean updates);

    public abstract Builder setMaxClockSkew(Duration skew);

    public abstract Builder setArrival(String column);

    public abstract DecisionsSpec build();
  }
}

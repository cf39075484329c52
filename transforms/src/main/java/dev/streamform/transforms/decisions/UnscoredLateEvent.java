package dev.streamform.transforms.decisions;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import java.util.List;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;

/**
 * An event beyond the declared lateness — it never gets a decision of its own — with its {@link
 * #action()} and the ids of the decisions whose features it would have changed (under {@link
 * LateAction#REVISE}: the decisions it superseded), so that nothing it touches is lost from sight.
 */
@AutoValue
public abstract class UnscoredLateEvent implements Serializable {

  public abstract String model();

  public abstract Row key();

  public abstract Row event();

  public abstract String eventId();

  public abstract int partition();

  public abstract long offset();

  public abstract Instant occurredAt();

  /** The partition's watermark it arrived at ({@code >= occurred_at + lateness}). */
  public abstract Instant arrivalWatermark();

  public abstract LateAction action();

  /** True when it was applied to the key's feature state ({@code late_updates_state: true}). */
  public abstract boolean updatedState();

  /** The latest decision ids of the key's events in {@code [t, t + range)}, in log order. */
  public abstract List<String> affectedDecisions();

  /** {@code ignored}, {@code reconciled} or {@code revising}. */
  public String route() {
    return action() == LateAction.IGNORE
        ? "ignored"
        : action() == LateAction.RECONCILE ? "reconciled" : "revising";
  }

  static UnscoredLateEvent of(
      String model,
      Row key,
      Row event,
      String eventId,
      int partition,
      long offset,
      Instant occurredAt,
      Instant arrivalWatermark,
      LateAction action,
      boolean updatedState,
      List<String> affected) {
    return new AutoValue_UnscoredLateEvent(
        model,
        key,
        event,
        eventId,
        partition,
        offset,
        occurredAt,
        arrivalWatermark,
        action,
        updatedState,
        List.copyOf(affected));
  }
}

package dev.streamform.transforms.decisions;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import java.util.List;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * An event beyond the declared lateness — it never gets a decision of its own — with its {@link
 * #action()} and the ids of the decisions whose features it would have changed (under {@link
 * LateAction#REVISE}: the decisions it superseded), so that nothing it touches is lost from sight.
 *
 * <p>With a {@link #reason()}, an event whose answer would reach below what its key's state still
 * keeps (ADR 0050): state freed while its partition was idle. An on-time event of that kind gets no
 * decision either and comes here, on the reconcile route, so that no decision claims state it did
 * not read; a late one keeps its route and says that its affected decisions may be incomplete.
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

  /**
   * The partition's watermark it arrived at: {@code > occurred_at + lateness} for a late event;
   * null only for an event, not late, that arrived while it was undefined.
   */
  public abstract @Nullable Instant arrivalWatermark();

  public abstract LateAction action();

  /** True when it was applied to the key's feature state ({@code late_updates_state: true}). */
  public abstract boolean updatedState();

  /** The latest decision ids of the key's events in {@code [t, t + range)}, in log order. */
  public abstract List<String> affectedDecisions();

  /**
   * Null for a late event handled by its declared action; otherwise why its answer could not be
   * complete: the part of its reach below the key's freed horizon (ADR 0050).
   */
  public abstract @Nullable String reason();

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
      @Nullable Instant arrivalWatermark,
      LateAction action,
      boolean updatedState,
      List<String> affected,
      @Nullable String reason) {
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
        List.copyOf(affected),
        reason);
  }
}

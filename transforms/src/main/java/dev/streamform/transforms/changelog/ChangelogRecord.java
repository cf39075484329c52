package dev.streamform.transforms.changelog;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One record of a keyed changelog: the key's new aggregate values after one event was applied.
 *
 * <p>{@link Op#INSERT} the first time a key has state (and again after its state expired), {@link
 * Op#UPDATE} after that. Carries the causing event's identity, position and event time.
 *
 * <p>Its element timestamp in a pipeline is {@link #eventTime()}, the causing event's time (the
 * same rule as for the clock's late events), so windowing the changelog by event time needs no
 * {@code WithTimestamps}. Records leave {@link KeyedChangelog} once the source's watermark has
 * passed the watermark their event arrived at (see {@link KeyedChangelog}, "Order"), in the order
 * of each key's log.
 */
@AutoValue
public abstract class ChangelogRecord implements Serializable {

  /** Whether the key had state before the event. */
  public enum Op {
    INSERT,
    UPDATE
  }

  public abstract Op op();

  /** The key columns' values. */
  public abstract Row key();

  /** The aggregate values, named as the aggregations. */
  public abstract Row values();

  /** The causing event's id ({@code <partition>-<offset>}). */
  public abstract String eventId();

  public abstract int partition();

  public abstract long offset();

  public abstract Instant eventTime();

  /**
   * When its key's keyed stage emitted this record: the event-time timer's time that released it
   * (in log order), or the event's stamp when applied on arrival; null when the producer did not
   * say. With {@link #emission()} it orders a key's records as they were emitted, an order a runner
   * does not keep between stages (docs/decisions/0024).
   */
  public abstract @Nullable Instant emittedAt();

  /** Its place, 0, 1, ..., among its key's records emitted at {@link #emittedAt()}. */
  public abstract int emission();

  public static ChangelogRecord of(
      Op op, Row key, Row values, String eventId, int partition, long offset, Instant eventTime) {
    return new AutoValue_ChangelogRecord(
        op, key, values, eventId, partition, offset, eventTime, null, 0);
  }

  /** This record, emitted by its keyed stage at {@code emittedAt} as the {@code emission}th. */
  public ChangelogRecord emitted(@Nullable Instant emittedAt, int emission) {
    return new AutoValue_ChangelogRecord(
        op(), key(), values(), eventId(), partition(), offset(), eventTime(), emittedAt, emission);
  }

  /** The value of an output column, key or aggregate. */
  public Object value(String column) {
    return key().getSchema().hasField(column) ? key().getValue(column) : values().getValue(column);
  }
}

package dev.streamform.transforms.changelog;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import org.apache.beam.sdk.values.Row;
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

  public static ChangelogRecord of(
      Op op, Row key, Row values, String eventId, int partition, long offset, Instant eventTime) {
    return new AutoValue_ChangelogRecord(op, key, values, eventId, partition, offset, eventTime);
  }

  /** The value of an output column, key or aggregate. */
  public Object value(String column) {
    return key().getSchema().hasField(column) ? key().getValue(column) : values().getValue(column);
  }
}

package dev.streamform.transforms.envelope;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import java.util.Objects;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A source item with its event time established: an event (a record whose event time was read from
 * its event-time column) or a punctuation carrying an explicit watermark.
 *
 * <p>Guarantees: {@link #eventTime()} of an event always comes from the record, never from
 * processing time; a record without a usable event time never becomes an envelope (it is
 * quarantined by {@code EventTimeExtraction}).
 */
@AutoValue
public abstract class Envelope implements Serializable {

  /** Stable identity of the event: {@code <partition>-<offset>}. */
  public abstract String eventId();

  /** The event time of an event; the watermark value of a punctuation. */
  public abstract Instant eventTime();

  /**
   * When the item was read (processing time); informational only: it is not part of {@link
   * #equals}, so the same item read twice (a replay) is the same envelope.
   */
  public abstract Instant ingestTime();

  public abstract int partition();

  public abstract long offset();

  /** The record of an event, or null for a punctuation. */
  public abstract @Nullable Row record();

  public boolean isWatermark() {
    return record() == null;
  }

  /**
   * When the item arrived, by {@code column} (a timestamp column of the record, e.g. when a server
   * received it), or its {@link #ingestTime()} when {@code column} is null or holds no timestamp;
   * null when {@code column} is named and the record has no value in it. The one reading of the
   * arrival clock, for the scorer's skew bound and the source clock's alike (ADR 0113, 0195).
   */
  public @Nullable Instant arrivalTime(@Nullable String column) {
    if (column == null) {
      return ingestTime();
    }
    Object v = record() == null ? null : record().getValue(column);
    if (v == null) {
      return null;
    }
    return v instanceof org.joda.time.ReadableInstant
        ? new Instant(((org.joda.time.ReadableInstant) v).getMillis())
        : ingestTime();
  }

  public static Envelope event(SourceRecord source, Instant eventTime) {
    return new AutoValue_Envelope(
        idOf(source.partition(), source.offset()),
        eventTime,
        source.ingestTime(),
        source.partition(),
        source.offset(),
        source.record());
  }

  public static Envelope punctuation(SourceRecord source) {
    return new AutoValue_Envelope(
        idOf(source.partition(), source.offset()),
        source.watermark(),
        source.ingestTime(),
        source.partition(),
        source.offset(),
        null);
  }

  /**
   * A placeholder for a record that was quarantined: a punctuation at {@link
   * BoundedWindow#TIMESTAMP_MIN_VALUE}, which carries no watermark information ({@code max(W, -inf)
   * = W}) and no record, so a clock that restores offset order ({@code
   * SourceClock.withContiguousOffsets()}) sees the partition's offsets without a hole instead of
   * waiting for the quarantined offset forever. Nothing is judged or emitted for it.
   */
  public static Envelope gap(SourceRecord source) {
    return new AutoValue_Envelope(
        idOf(source.partition(), source.offset()),
        BoundedWindow.TIMESTAMP_MIN_VALUE,
        source.ingestTime(),
        source.partition(),
        source.offset(),
        null);
  }

  /**
   * A marker that partition {@code partition} exists, before any of its items: not part of the log
   * (its offset is -1), it lets a clock hold the watermark back for a partition it has not heard
   * from yet. Like a gap it carries no watermark information.
   */
  public static Envelope partitionStart(int partition) {
    return new AutoValue_Envelope(
        partition + "-start",
        BoundedWindow.TIMESTAMP_MIN_VALUE,
        BoundedWindow.TIMESTAMP_MIN_VALUE,
        partition,
        -1L,
        null);
  }

  /** True for a {@link #partitionStart} marker. */
  public boolean isPartitionStart() {
    return offset() < 0;
  }

  /** True for a {@link #gap} (a quarantined record's place in the log). */
  public boolean isGap() {
    return isWatermark() && eventTime().equals(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  static Envelope of(
      String eventId,
      Instant eventTime,
      Instant ingestTime,
      int partition,
      long offset,
      @Nullable Row record) {
    return new AutoValue_Envelope(eventId, eventTime, ingestTime, partition, offset, record);
  }

  /** Equal when every property but {@link #ingestTime()} is. */
  @Override
  public final boolean equals(@Nullable Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof Envelope)) {
      return false;
    }
    Envelope e = (Envelope) o;
    return partition() == e.partition()
        && offset() == e.offset()
        && eventId().equals(e.eventId())
        && eventTime().equals(e.eventTime())
        && Objects.equals(record(), e.record());
  }

  @Override
  public final int hashCode() {
    return Objects.hash(eventId(), eventTime(), partition(), offset(), record());
  }

  private static String idOf(int partition, long offset) {
    return partition + "-" + offset;
  }
}

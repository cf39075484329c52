package dev.streamform.transforms.envelope;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import java.util.Objects;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One item of a source's log, as read: either a decoded record or a punctuation (an explicit
 * watermark item), at a position {@code (partition, offset)} of the log.
 *
 * <p>Positions are what make the source clock deterministic: the clock judges the items of one
 * partition in offset order, whatever order a runner delivers them in (see {@code SourceClock}).
 */
@AutoValue
public abstract class SourceRecord implements Serializable {

  /** The log partition the item was read from (0 for single-partition sources). */
  public abstract int partition();

  /** The item's position within its partition. */
  public abstract long offset();

  /**
   * When the item was read (processing time); informational only, never used as event time, and not
   * part of {@link #equals}: the same item read twice (a replay) is the same record.
   */
  public abstract Instant ingestTime();

  /** The decoded record, or null for a punctuation. */
  public abstract @Nullable Row record();

  /** The watermark a punctuation carries, or null for a record. */
  public abstract @Nullable Instant watermark();

  public boolean isWatermark() {
    return watermark() != null;
  }

  /**
   * A record at {@code (partition, offset)}.
   *
   * @throws IllegalArgumentException if the partition or the offset is negative (offsets are
   *     positions in a partition's log: 0, 1, 2, ...), or the ingest time or the record is null
   */
  public static SourceRecord of(int partition, long offset, Instant ingestTime, Row record) {
    checkPosition(partition, offset);
    checkIngestTime("SourceRecord.of", partition, offset, ingestTime);
    if (record == null) {
      throw new IllegalArgumentException(
          "SourceRecord.of: the record at partition "
              + partition
              + " offset "
              + offset
              + " is null; use SourceRecord.punctuation for a watermark item");
    }
    return new AutoValue_SourceRecord(partition, offset, ingestTime, record, null);
  }

  /**
   * A punctuation: "the watermark of this partition is at least {@code watermark}".
   *
   * @throws IllegalArgumentException if the partition or the offset is negative, or the ingest time
   *     or the watermark is null
   */
  public static SourceRecord punctuation(
      int partition, long offset, Instant ingestTime, Instant watermark) {
    checkPosition(partition, offset);
    checkIngestTime("SourceRecord.punctuation", partition, offset, ingestTime);
    if (watermark == null) {
      throw new IllegalArgumentException(
          "SourceRecord.punctuation: the watermark at partition "
              + partition
              + " offset "
              + offset
              + " is null; use SourceRecord.of for a record");
    }
    return new AutoValue_SourceRecord(partition, offset, ingestTime, null, watermark);
  }

  /** Equal when every property but {@link #ingestTime()} is. */
  @Override
  public final boolean equals(@Nullable Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof SourceRecord)) {
      return false;
    }
    SourceRecord r = (SourceRecord) o;
    return partition() == r.partition()
        && offset() == r.offset()
        && Objects.equals(record(), r.record())
        && Objects.equals(watermark(), r.watermark());
  }

  @Override
  public final int hashCode() {
    return Objects.hash(partition(), offset(), record(), watermark());
  }

  private static void checkIngestTime(
      String call, int partition, long offset, @Nullable Instant ingestTime) {
    if (ingestTime == null) {
      throw new IllegalArgumentException(
          call
              + ": the ingest time at partition "
              + partition
              + " offset "
              + offset
              + " is null; give when the item was read, e.g. Instant.now() (it is informational"
              + " and never event time)");
    }
  }

  private static void checkPosition(int partition, long offset) {
    if (partition < 0 || offset < 0) {
      throw new IllegalArgumentException(
          "SourceRecord: partition "
              + partition
              + " offset "
              + offset
              + " is not a position in a log; partitions and offsets start at 0");
    }
  }
}

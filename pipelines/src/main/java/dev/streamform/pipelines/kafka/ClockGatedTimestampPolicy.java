package dev.streamform.pipelines.kafka;

import java.util.Optional;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicyFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.kafka.common.TopicPartition;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * KafkaIO's timestamp policy for a source with a declared clock: the runner's watermark must never
 * run ahead of the clock's per-partition watermark {@code W_p}, and the clock, not KafkaIO, says
 * where {@code W_p} is.
 *
 * <p>Why this is enough: {@code SourceClock} holds its output watermark at {@code W_p} for every
 * partition it has seen an item of (a timer's output timestamp), so downstream of the clock the
 * watermark is {@code min(KafkaIO's watermark, min_p W_p)}. What the holds cannot cover is a
 * partition whose first item has not reached the clock yet. So, per partition, this policy reports
 * {@link BoundedWindow#TIMESTAMP_MIN_VALUE} until the partition's first record has been read (a
 * runner delivers that record to the clock before any later watermark of the same reader), and
 * after that {@link #AFTER_EVERY_EVENT_TIME}, leaving the holds in charge: {@code W} is then {@code
 * min_p W_p}, wherever event time is against the wall clock (docs/semantics.md §2; ADR 0191 — it
 * was processing time, so a window ending ahead of the wall clock never closed).
 *
 * <p>Two cases follow processing time instead, as every partition did before: a source with {@code
 * idle_after}, and a source without event time. A partition silent for {@code idle_after} stops
 * holding (here for one that never delivered, in the clock for one that went quiet); when every
 * partition has, nothing but this policy holds the watermark, and processing time closes a quiet
 * source's windows as the wall clock passes their end rather than all at once (a window still
 * filling would be final before its events came). A watermark only rises, so the choice is made
 * once, by the declaration. After a restore, a partition that had been read before (its
 * checkpointed watermark is past the minimum) counts as read: the clock's holds are restored with
 * its state.
 *
 * <p>Element timestamps are processing time at read; event time is read from the record by {@code
 * EventTimeExtraction}, never from Kafka's record timestamp.
 */
final class ClockGatedTimestampPolicy extends TimestampPolicy<byte[], byte[]> {
  /**
   * The watermark of a partition that has delivered, when the clock's holds are in charge: later
   * than any event time a source accepts (a window ending after 9999 is quarantined), and a day
   * before the end of the global window, whose passing would end every stage's state and timers.
   */
  static final Instant AFTER_EVERY_EVENT_TIME =
      GlobalWindow.INSTANCE.maxTimestamp().minus(Duration.standardDays(1));

  private final @Nullable Duration idleAfter;
  private final boolean holdsInCharge;
  private final Instant created = Instant.now();
  private boolean read;

  private ClockGatedTimestampPolicy(
      @Nullable Duration idleAfter, boolean eventTime, Optional<Instant> previous) {
    this.idleAfter = idleAfter;
    this.holdsInCharge = eventTime && idleAfter == null;
    this.read = previous.isPresent() && previous.get().isAfter(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  /**
   * The factory KafkaIO calls per partition; {@code idleAfter} null = never idle; {@code eventTime}
   * false for a source that declares none (its clock holds nothing).
   */
  static TimestampPolicyFactory<byte[], byte[]> factory(
      @Nullable Duration idleAfter, boolean eventTime) {
    return new Factory(idleAfter, eventTime);
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> record) {
    read = true;
    return Instant.now();
  }

  @Override
  public Instant getWatermark(PartitionContext ctx) {
    if (read && holdsInCharge) {
      return AFTER_EVERY_EVENT_TIME;
    }
    Instant now = Instant.now();
    boolean idle = idleAfter != null && !now.isBefore(created.plus(idleAfter));
    return read || idle ? now : BoundedWindow.TIMESTAMP_MIN_VALUE;
  }

  private static final class Factory implements TimestampPolicyFactory<byte[], byte[]> {
    private final @Nullable Duration idleAfter;
    private final boolean eventTime;

    Factory(@Nullable Duration idleAfter, boolean eventTime) {
      this.idleAfter = idleAfter;
      this.eventTime = eventTime;
    }

    @Override
    public TimestampPolicy<byte[], byte[]> createTimestampPolicy(
        TopicPartition partition, Optional<Instant> previousWatermark) {
      return new ClockGatedTimestampPolicy(idleAfter, eventTime, previousWatermark);
    }
  }
}

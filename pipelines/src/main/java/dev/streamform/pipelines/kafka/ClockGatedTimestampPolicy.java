package dev.streamform.pipelines.kafka;

import java.util.Optional;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicyFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
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
 * processing time after that, leaving the holds in charge. A partition that stays empty for {@code
 * idle_after} stops holding the watermark back here too (and the clock releases a partition silent
 * that long). After a restore, a partition that had been read before (its checkpointed watermark is
 * past the minimum) counts as read: the clock's holds are restored with its state.
 *
 * <p>Element timestamps are processing time at read; event time is read from the record by {@code
 * EventTimeExtraction}, never from Kafka's record timestamp.
 */
final class ClockGatedTimestampPolicy extends TimestampPolicy<byte[], byte[]> {
  private final @Nullable Duration idleAfter;
  private final Instant created = Instant.now();
  private boolean read;

  private ClockGatedTimestampPolicy(@Nullable Duration idleAfter, Optional<Instant> previous) {
    this.idleAfter = idleAfter;
    this.read = previous.isPresent() && previous.get().isAfter(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  /** The factory KafkaIO calls per partition; {@code idleAfter} null = never idle. */
  static TimestampPolicyFactory<byte[], byte[]> factory(@Nullable Duration idleAfter) {
    return new Factory(idleAfter);
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> record) {
    read = true;
    return Instant.now();
  }

  @Override
  public Instant getWatermark(PartitionContext ctx) {
    Instant now = Instant.now();
    boolean idle = idleAfter != null && !now.isBefore(created.plus(idleAfter));
    return read || idle ? now : BoundedWindow.TIMESTAMP_MIN_VALUE;
  }

  private static final class Factory implements TimestampPolicyFactory<byte[], byte[]> {
    private final @Nullable Duration idleAfter;

    Factory(@Nullable Duration idleAfter) {
      this.idleAfter = idleAfter;
    }

    @Override
    public TimestampPolicy<byte[], byte[]> createTimestampPolicy(
        TopicPartition partition, Optional<Instant> previousWatermark) {
      return new ClockGatedTimestampPolicy(idleAfter, previousWatermark);
    }
  }
}

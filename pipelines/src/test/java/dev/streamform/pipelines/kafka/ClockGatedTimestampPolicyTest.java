package dev.streamform.pipelines.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * What KafkaIO's watermark says per partition before the clock's holds take over: the beginning of
 * time until a partition's first record has been read, then nothing the clock's {@code W_p} must
 * wait for. It said processing time, so a window whose end lay ahead of the wall clock (events of
 * 2099, a producer whose clock runs ahead) never closed on Kafka, however far every partition's
 * punctuations went, and a late event after a future-dated record waited in the log order for ever
 * (found by a read-only audit of bad records on Kafka; ADR 0191).
 */
class ClockGatedTimestampPolicyTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);

  /** The last moment a declared event time can have: a window ending later is quarantined. */
  private static final Instant YEAR_9999_END = Instant.parse("9999-12-31T23:59:59.999Z");

  private static KafkaRecord<byte[], byte[]> record() {
    return new KafkaRecord<>(
        "t", 0, 0L, 0L, KafkaTimestampType.CREATE_TIME, null, new byte[0], new byte[0]);
  }

  private static TimestampPolicy<byte[], byte[]> policy(Duration idleAfter, boolean eventTime) {
    return ClockGatedTimestampPolicy.factory(idleAfter, eventTime)
        .createTimestampPolicy(P0, Optional.empty());
  }

  @Test
  void aPartitionThatDeliveredLeavesItsEventTimeToTheClocksHolds() {
    TimestampPolicy<byte[], byte[]> policy = policy(null, true);
    assertEquals(BoundedWindow.TIMESTAMP_MIN_VALUE, policy.getWatermark(null), "nothing read");
    policy.getTimestampForRecord(null, record());
    Instant watermark = policy.getWatermark(null);
    assertTrue(watermark.isAfter(YEAR_9999_END), "past every event time: " + watermark);
    assertTrue(
        watermark.isBefore(GlobalWindow.INSTANCE.maxTimestamp()),
        "before the end of the global window, which would end the job's state: " + watermark);
  }

  @Test
  void aRestoredPartitionThatHadDeliveredDoesToo() {
    TimestampPolicy<byte[], byte[]> policy =
        ClockGatedTimestampPolicy.factory(null, true)
            .createTimestampPolicy(P0, Optional.of(Instant.parse("2026-08-30T10:00:00Z")));
    assertTrue(policy.getWatermark(null).isAfter(YEAR_9999_END));
  }

  /**
   * With {@code idle_after} a partition may stop holding; when every one has, nothing holds the
   * watermark but this policy, and it follows processing time, as before: a quiet source's windows
   * close as the wall clock passes their end, never all at once.
   */
  @Test
  void withIdlenessOrWithoutEventTimeTheWatermarkFollowsProcessingTime() {
    for (TimestampPolicy<byte[], byte[]> policy :
        java.util.List.of(policy(Duration.standardMinutes(1), true), policy(null, false))) {
      policy.getTimestampForRecord(null, record());
      Instant before = Instant.now();
      Instant watermark = policy.getWatermark(null);
      assertTrue(
          !watermark.isBefore(before) && !watermark.isAfter(Instant.now()),
          "processing time: " + watermark);
    }
  }
}

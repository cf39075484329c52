package dev.streamform.benchmarks;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The benchmark's events: orders of the customer_metrics shape ({@code customer_id} int64, {@code
 * amount} decimal(12,2), {@code ordered_at} timestamp), a pure function of {@code (events, seed)}.
 *
 * <p>Shape: one event per second of nominal time; customer ids uniform over {@value #KEYS} keys;
 * partition {@code customer_id % partitions} (a keyed Kafka topic), offsets 0, 1, 2, ... per
 * partition in arrival order. Disorder: an event's time is its nominal time minus a delay — 0 for
 * 70% of events, uniform in [0, 4m) for 29% (inside the 5m watermark), uniform in [6m, 60m) for 1%
 * (behind the watermark, so late). Uniform keys keep the oracle usable: it recomputes a key's
 * aggregate from all its events, which is quadratic in a hot key's event count.
 *
 * <p>Every engine reads the same arrays, generated once per JVM (the embedded Flink cluster runs in
 * the benchmark's JVM), so generation is not part of any engine's time.
 */
public final class Workload {
  public static final int KEYS = 10_000;
  public static final Duration WATERMARK = Duration.ofMinutes(5);
  public static final Duration RETENTION = Duration.ofHours(1);
  static final long START_MILLIS = 1_788_076_800_000L; // 2026-08-30T00:00:00Z

  private static final Map<String, Workload> GENERATED = new ConcurrentHashMap<>();

  public final int events;
  public final int partitions;
  public final long seed;

  /** Per event, in global arrival order. */
  public final long[] customerId;

  public final long[] amountCents;
  public final long[] eventTime;
  public final int[] partition;
  public final long[] offset;

  /** Per partition, the indexes of its events in offset order. */
  public final int[][] byPartition;

  private Workload(int events, int partitions, long seed) {
    this.events = events;
    this.partitions = partitions;
    this.seed = seed;
    customerId = new long[events];
    amountCents = new long[events];
    eventTime = new long[events];
    partition = new int[events];
    offset = new long[events];
    int[] counts = new int[partitions];
    SplittableRandom random = new SplittableRandom(seed);
    long watermark = WATERMARK.toMillis();
    for (int i = 0; i < events; i++) {
      customerId[i] = 1 + random.nextInt(KEYS);
      amountCents[i] = 100 + random.nextInt(49_900);
      double r = random.nextDouble();
      long delay =
          r < 0.70
              ? 0
              : r < 0.99
                  ? random.nextLong(watermark - 60_000)
                  : watermark + 60_000 + random.nextLong(Duration.ofMinutes(54).toMillis());
      eventTime[i] = START_MILLIS + i * 1000L - delay;
      partition[i] = (int) (customerId[i] % partitions);
      offset[i] = counts[partition[i]]++;
    }
    byPartition = new int[partitions][];
    for (int p = 0; p < partitions; p++) {
      byPartition[p] = new int[counts[p]];
    }
    int[] filled = new int[partitions];
    for (int i = 0; i < events; i++) {
      byPartition[partition[i]][filled[partition[i]]++] = i;
    }
  }

  /** The workload of {@code events} events over {@code partitions} partitions from {@code seed}. */
  public static Workload of(int events, int partitions, long seed) {
    return GENERATED.computeIfAbsent(
        events + "/" + partitions + "/" + seed, k -> generate(events, partitions, seed));
  }

  /** A fresh generation, not shared with the rest of the JVM. */
  static Workload generate(int events, int partitions, long seed) {
    return new Workload(events, partitions, seed);
  }

  private volatile byte @org.checkerframework.checker.nullness.qual.Nullable [][] json;

  /**
   * Event {@code i} as the JSON value of its Kafka record, the way a producer writes it ({@code
   * {"customer_id":..,"amount":..,"ordered_at":".."}}): encoded once per JVM, on first use, so that
   * the pipelines read bytes (and parse them) without the encoding counting in their time.
   */
  public byte[] json(int i) {
    byte[][] values = json;
    if (values == null) {
      synchronized (this) {
        values = json;
        if (values == null) {
          values = new byte[events][];
          for (int e = 0; e < events; e++) {
            values[e] =
                ("{\"customer_id\":"
                        + customerId[e]
                        + ",\"amount\":"
                        + amount(e).toPlainString()
                        + ",\"ordered_at\":\""
                        + java.time.Instant.ofEpochMilli(eventTime[e])
                        + "\"}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
          }
          json = values;
        }
      }
    }
    return values[i];
  }

  /** Event {@code i}'s Kafka record key: its customer id as text. */
  public byte[] key(int i) {
    return Long.toString(customerId[i]).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  public BigDecimal amount(int i) {
    return BigDecimal.valueOf(amountCents[i], 2);
  }
}

package dev.streamform.endtoend;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamform.endtoend.LocalServices.TopicRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31's latency measure, not a test of the suite (its name matches no surefire include, so
 * {@code mvn verify} leaves it out; {@code benchmarks/latency} runs it): on the Flink cluster
 * ({@code runners-config}, parallelism 2), {@code streamform run} of the benchmark's upsert model
 * ({@code customer_metrics}: sum per customer, log clock 5m dropping late events, retention 1h),
 * the time from an event's append to the source topic to its changelog record on the model's topic.
 *
 * <p>Two phases on one job. <b>Maximum</b>: a backlog of {@code latency.backlog} events (default
 * 200,000) is appended before the job starts; the maximum rate is the backlog over the span from
 * its first changelog record to its last. <b>Steady</b>: for {@code latency.seconds} (default 60)
 * events are appended at half that rate (or {@code latency.rate} when given), 1% of them 6–60
 * minutes behind their partition (late: dropped to the late topic, no changelog record), 29% up to
 * 4 minutes behind, and partition 1 falling behind: it receives nothing from a third to a half of
 * the phase and then goes on at its rate, so its event time stays behind partition 0's for the
 * rest.
 *
 * <p>Times: the source topic uses {@code LogAppendTime}, so an event's append time is the broker's
 * ({@code RecordMetadata.timestamp()}); a changelog record's timestamp is its writer's send time
 * (the job's producer). Both clocks are this machine's. Prints p50, p99 and max over the steady
 * phase's changelog records, the rate and the counts; asserts only that every steady on-time event
 * got its record (a latency figure over a lost record would flatter).
 *
 * <p>With {@code -Dlatency.model=hourly_revenue} ({@code benchmarks/latency --windows}) the same
 * run measures the windowed model instead (hourly windows per customer, allowed lateness 30m, the
 * same source): the time from the moment a revision record could first have been written to the
 * record. That moment is the later of the append of the newest event the record reflects (its
 * {@code offsets}, per partition the largest) and, for an {@code on_time} record or a correction
 * held until then, the append of the event that moved {@code W = min_p W_p} to the window's end
 * ({@code end + 30m} for a {@code final} record), computed here from what was appended as the
 * declared clock computes {@code W_p}. A correction after {@code W} passed the end is due when its
 * late event is appended. Asserts that every window of the steady phase with an on-time event and
 * an end that {@code W} passed has its {@code on_time} record.
 */
class ChangelogLatency {
  private static final String CHANGELOG_MODEL = "customer_metrics";
  private static final String WINDOWED_MODEL = "hourly_revenue";
  private static final String MODEL = System.getProperty("latency.model", CHANGELOG_MODEL);
  private static final boolean WINDOWED = MODEL.equals(WINDOWED_MODEL);
  private static final long WATERMARK = Duration.ofMinutes(5).toMillis();
  private static final long HOUR = Duration.ofHours(1).toMillis();
  private static final long LATENESS = Duration.ofMinutes(30).toMillis();
  private static final int PARTITIONS = 2;
  private static final int KEYS = 10_000;
  private static final Instant BASE = Instant.parse("2026-09-01T00:00:00Z");

  @TempDir Path dir;

  /** Per partition: the next event's nominal time (one second of event time per event). */
  private final long[] nominal = new long[PARTITIONS];

  private final SplittableRandom random = new SplittableRandom(31);

  /**
   * Append time of (partition, offset) for every event, late ones too (a changelog record only ever
   * names an on-time event); 0 = not appended; grown as offsets grow.
   */
  private final long[][] appended = new long[PARTITIONS][1 << 16];

  /** Per partition the clock's {@code W_p} after what was sent: the largest event time - 5m. */
  private final long[] partitionWatermark = {Long.MIN_VALUE, Long.MIN_VALUE};

  /** {@code W = min_p W_p} after what was sent, from before the first event's window on. */
  private long watermark = BASE.toEpochMilli() - 2 * HOUR;

  /**
   * Every half hour of event time that {@code W} passed -> (partition, offset) of the event whose
   * append moved {@code W} to it: a window's end and its end plus the allowed lateness.
   */
  private final TreeMap<Long, long[]> crossings = new TreeMap<>();

  /** "customer/window start" of each window with an on-time event of the steady phase. */
  private final Set<String> steadyWindows = new HashSet<>();

  private boolean steady;

  @BeforeAll
  static void startServices() throws Exception {
    LocalServices.start();
  }

  @AfterAll
  static void stopServices() throws Exception {
    try {
      LocalServices.cancelAll();
    } finally {
      LocalServices.stop();
    }
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void changelogLatencyAtHalfTheMaximumRate() throws Exception {
    int backlog = Integer.getInteger("latency.backlog", 200_000);
    int seconds = Integer.getInteger("latency.seconds", 60);
    String stamp = Long.toString(System.currentTimeMillis(), 36);
    String source = "latency_orders_" + stamp;
    String changelog = (WINDOWED ? "latency_revisions_" : "latency_changelog_") + stamp;
    Path project = project(source, stamp);
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, LocalServices.BOOTSTRAP))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(source, PARTITIONS, (short) 1)
                      .configs(Map.of("message.timestamp.type", "LogAppendTime")),
                  // not compacted, as run would create it: every record stays to be measured
                  new NewTopic(changelog, PARTITIONS, (short) 1)))
          .all()
          .get();
    }
    long[] counts = new long[2]; // on-time events: backlog, steady
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      // maximum: the backlog first, then the job
      for (int i = 0; i < backlog; i++) {
        counts[0] += send(producer, source, i % PARTITIONS) ? 1 : 0;
      }
      producer.flush();
      long[] backlogEnd = {offsetsSent[0], offsetsSent[1]};
      String job = LocalServices.submit(project, MODEL, 2, Duration.ofSeconds(5));
      LocalServices.awaitRunning(job);
      long[] span;
      long firstRecords;
      if (WINDOWED) {
        // every window the backlog closed, to the last hour's end before its W
        long closedEnd = lastEndBefore(watermark);
        Windows backlogWindows = new Windows();
        LocalServices.follow(
            changelog,
            backlogWindows::add,
            () -> backlogWindows.maxOnTimeEnd >= closedEnd,
            Duration.ofMinutes(10));
        span = new long[] {backlogWindows.firstAt, backlogWindows.lastAt};
        firstRecords = backlogWindows.records.size();
        System.out.printf(
            Locale.ROOT,
            "backlog's window records by status %s; window ends %s .. %s (W after the backlog:"
                + " %s)%n",
            backlogWindows.byStatus(),
            Instant.ofEpochMilli(backlogWindows.minEnd),
            Instant.ofEpochMilli(backlogWindows.maxOnTimeEnd),
            Instant.ofEpochMilli(watermark));
      } else {
        List<TopicRecord> first = drain(changelog, counts[0]);
        span = span(first);
        firstRecords = first.size();
      }
      // the changelog's records (one per on-time event), or for windows the backlog's on-time
      // events, over the span of the records (the first hour of event time is read before any
      // window record: ADR 0068)
      double max = (WINDOWED ? counts[0] : firstRecords) * 1000.0 / Math.max(1, span[1] - span[0]);
      double rate =
          System.getProperty("latency.rate") != null
              ? Double.parseDouble(System.getProperty("latency.rate"))
              : max / 2;
      System.out.printf(
          Locale.ROOT,
          "maximum: %,d %s records of %,d on-time backlog events in %.2f s (first to last"
              + " record): %,.0f events/s%n",
          firstRecords,
          WINDOWED ? "window" : "changelog",
          counts[0],
          (span[1] - span[0]) / 1000.0,
          max);
      long steadyFrom = System.currentTimeMillis();
      steady = true;

      // steady: half the maximum, late events, partition 1 falling behind
      long start = System.nanoTime();
      long length = Duration.ofSeconds(seconds).toNanos();
      long sent = 0;
      int next = 0;
      while (System.nanoTime() - start < length) {
        long elapsed = System.nanoTime() - start;
        long due = (long) (rate * elapsed / 1e9);
        boolean stalled = elapsed > length / 3 && elapsed < length / 2;
        for (; sent < due; sent++) {
          int p = next++ % PARTITIONS;
          if (stalled && p == 1) {
            p = 0; // partition 1 receives nothing meanwhile: its share goes to partition 0
          }
          counts[1] += send(producer, source, p) ? 1 : 0;
        }
        producer.flush();
        Thread.sleep(5);
      }
      double actual = sent / ((System.nanoTime() - start) / 1e9);
      System.out.printf(
          Locale.ROOT,
          "steady: %,d events in %d s at %,.0f events/s (target %,.0f: half the maximum), %,d on"
              + " time, %,d late; partition 1 silent from %d s to %d s%n",
          sent,
          seconds,
          actual,
          rate,
          counts[1],
          sent - counts[1],
          seconds / 3,
          seconds / 2);
      if (WINDOWED) {
        revisionLatency(changelog, steadyFrom);
        return;
      }
      long expected = counts[0] + counts[1];
      List<TopicRecord> all = drain(changelog, expected);
      long[] latencies =
          all.stream()
              .mapToLong(
                  r -> {
                    String[] event = r.value().get("__event").asText().split("-");
                    int p = Integer.parseInt(event[0]);
                    long offset = Long.parseLong(event[1]);
                    if (offset < backlogEnd[p]) {
                      return -1; // the backlog: measured as the maximum above
                    }
                    return r.timestamp() - appendedAt(p, offset);
                  })
              .filter(l -> l >= 0)
              .sorted()
              .toArray();
      System.out.printf(
          Locale.ROOT,
          "changelog latency (append to the source topic -> changelog record), %,d records: p50"
              + " %d ms, p99 %d ms, max %d ms; target p99 <= 1000 ms: %s%n",
          latencies.length,
          percentile(latencies, 0.50),
          percentile(latencies, 0.99),
          latencies.length == 0 ? -1 : latencies[latencies.length - 1],
          latencies.length > 0 && percentile(latencies, 0.99) <= 1000 ? "met" : "NOT met");
      assertThat("changelog records of the steady phase", (long) latencies.length, greaterThan(0L));
      assertThat(
          "every on-time event of the steady phase has its changelog record",
          (long) latencies.length,
          org.hamcrest.Matchers.equalTo(counts[1]));
    }
  }

  private final long[] offsetsSent = new long[PARTITIONS];

  /**
   * Appends the next event of partition {@code p} (a customer of that partition, amount, event
   * time); its append time is kept by offset when the broker acknowledges it. True when on time.
   */
  private boolean send(KafkaProducer<byte[], byte[]> producer, String topic, int p) {
    long customer = PARTITIONS * (long) random.nextInt(KEYS / PARTITIONS) + p;
    double r = random.nextDouble();
    long now = nominal[p];
    nominal[p] += 1000;
    long delay =
        r < 0.70
            ? 0
            : r < 0.99
                ? random.nextLong(Duration.ofMinutes(4).toMillis())
                : Duration.ofMinutes(6).toMillis()
                    + random.nextLong(Duration.ofMinutes(54).toMillis());
    boolean onTime = delay < WATERMARK;
    long eventTime = BASE.toEpochMilli() + now - delay;
    long offset = offsetsSent[p];
    if (onTime && steady) {
      steadyWindows.add(customer + "/" + Math.floorDiv(eventTime, HOUR) * HOUR);
    }
    advance(p, offset, eventTime);
    String json =
        "{\"customer_id\":"
            + customer
            + ",\"amount\":"
            + (1 + random.nextInt(499))
            + ".25,\"ordered_at\":\""
            + BASE.plusMillis(now - delay)
            + "\"}";
    offsetsSent[p]++;
    producer.send(
        new ProducerRecord<>(
            topic,
            p,
            null,
            Long.toString(customer).getBytes(StandardCharsets.UTF_8),
            json.getBytes(StandardCharsets.UTF_8)),
        (meta, error) -> {
          if (error == null) {
            record(p, meta.offset(), meta.timestamp());
          }
        });
    return onTime;
  }

  /**
   * The clock after event {@code offset} of partition {@code p} at {@code eventTime}: its {@code
   * W_p} (a late event leaves it), then {@code W}; every half hour {@code W} passes is crossed by
   * this event's append.
   */
  private void advance(int p, long offset, long eventTime) {
    partitionWatermark[p] = Math.max(partitionWatermark[p], eventTime - WATERMARK);
    long w = Math.min(partitionWatermark[0], partitionWatermark[1]);
    if (partitionWatermark[0] == Long.MIN_VALUE || partitionWatermark[1] == Long.MIN_VALUE) {
      return; // W is undefined while a partition has no W_p
    }
    long half = HOUR / 2;
    for (long b = Math.floorDiv(watermark, half) * half + half; b <= w; b += half) {
      crossings.putIfAbsent(b, new long[] {p, offset});
    }
    watermark = Math.max(watermark, w);
  }

  private synchronized long appendedAt(int p, long offset) {
    return offset < appended[p].length ? appended[p][(int) offset] : 0;
  }

  /** The last window end at or before {@code w}. */
  private static long lastEndBefore(long w) {
    return Math.floorDiv(w, HOUR) * HOUR;
  }

  /** A window record, as much of it as the measure needs (the JSON is not kept). */
  private record WindowRecord(
      String status, String window, long end, Map<Integer, Long> maxOffsets, long timestamp) {}

  /** Window records read so far, and what the waits ask of them, kept as they are read. */
  private static final class Windows {
    final List<WindowRecord> records = new java.util.ArrayList<>();
    final Set<String> onTime = new HashSet<>();
    long maxOnTimeEnd = Long.MIN_VALUE;
    long minEnd = Long.MAX_VALUE;
    long firstAt = Long.MAX_VALUE;
    long lastAt = Long.MIN_VALUE;

    void add(TopicRecord r) {
      JsonNode v = r.value();
      String status = v.get("status").asText();
      long start = Instant.parse(v.get("window_start").asText()).toEpochMilli();
      long end = Instant.parse(v.get("window_end").asText()).toEpochMilli();
      String window = v.get("customer_id").asLong() + "/" + start;
      Map<Integer, Long> offsets = new java.util.HashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = v.get("offsets").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> o = it.next();
        offsets.put(Integer.parseInt(o.getKey()), o.getValue().get("max").asLong());
      }
      records.add(new WindowRecord(status, window, end, offsets, r.timestamp()));
      if (status.equals("on_time")) {
        onTime.add(window);
        maxOnTimeEnd = Math.max(maxOnTimeEnd, end);
      }
      minEnd = Math.min(minEnd, end);
      firstAt = Math.min(firstAt, r.timestamp());
      lastAt = Math.max(lastAt, r.timestamp());
    }

    Map<String, Integer> byStatus() {
      Map<String, Integer> counts = new java.util.TreeMap<>();
      records.forEach(r -> counts.merge(r.status(), 1, Integer::sum));
      return counts;
    }
  }

  /**
   * The windowed measure's steady phase: waits until every window of the steady phase that {@code
   * W} closed has its {@code on_time} record, then prints p50/p99/max from each record's due moment
   * (see the class comment) to the record, over the records due in the steady phase.
   */
  private void revisionLatency(String topic, long steadyFrom) throws Exception {
    long closed = lastEndBefore(watermark);
    Set<String> due = new HashSet<>();
    for (String window : steadyWindows) {
      long start = Long.parseLong(window.substring(window.indexOf('/') + 1));
      if (start + HOUR <= closed) {
        due.add(window);
      }
    }
    Windows all = new Windows();
    LocalServices.follow(
        topic, all::add, () -> all.onTime.containsAll(due), Duration.ofMinutes(10));
    List<Long> latencies = new java.util.ArrayList<>();
    Map<String, Integer> byStatus = new java.util.TreeMap<>();
    for (WindowRecord r : all.records) {
      long at = 0;
      for (Map.Entry<Integer, Long> o : r.maxOffsets().entrySet()) {
        at = Math.max(at, appendedAt(o.getKey(), o.getValue()));
      }
      long[] crossing = crossings.get(r.status().equals("final") ? r.end() + LATENESS : r.end());
      if (crossing != null) {
        at = Math.max(at, appendedAt((int) crossing[0], crossing[1]));
      }
      if (at < steadyFrom) {
        continue; // due in the backlog: measured as the maximum
      }
      byStatus.merge(r.status(), 1, Integer::sum);
      latencies.add(r.timestamp() - at);
    }
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    System.out.printf(
        Locale.ROOT,
        "revision latency (due -> window record), %,d records %s: p50 %d ms, p99 %d ms, max %d ms;"
            + " %,d of %,d steady windows that W closed published on time%n",
        sorted.length,
        byStatus,
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        sorted.length == 0 ? -1 : sorted[sorted.length - 1],
        due.stream().filter(all.onTime::contains).count(),
        due.size());
    assertThat("window records of the steady phase", (long) sorted.length, greaterThan(0L));
    Set<String> missing = new java.util.TreeSet<>(due);
    missing.removeAll(all.onTime);
    assertThat(
        "every steady window that W closed has its on_time record",
        missing,
        org.hamcrest.Matchers.empty());
  }

  private synchronized void record(int p, long offset, long appendedAt) {
    if (offset >= appended[p].length) {
      appended[p] = Arrays.copyOf(appended[p], (int) Math.max(offset + 1, appended[p].length * 2L));
    }
    appended[p][(int) offset] = appendedAt;
  }

  /**
   * {@code topic}'s records once it holds {@code count} (or after 10 minutes, whatever it holds):
   * {@link LocalServices#drain} gives up after its own 2 minutes, which a loaded machine's backlog
   * can take.
   */
  private static List<TopicRecord> drain(String topic, long count) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    List<TopicRecord> records = LocalServices.drain(topic, r -> r.size() >= count);
    while (records.size() < count && System.nanoTime() < deadline) {
      records = LocalServices.drain(topic, r -> r.size() >= count);
    }
    return records;
  }

  /** The smallest and largest timestamp of {@code records}. */
  private static long[] span(List<TopicRecord> records) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (TopicRecord r : records) {
      min = Math.min(min, r.timestamp());
      max = Math.max(max, r.timestamp());
    }
    return new long[] {min, max};
  }

  /** The nearest-rank percentile of sorted {@code values}; -1 when there are none. */
  static long percentile(long[] values, double q) {
    if (values.length == 0) {
      return -1;
    }
    int rank = (int) Math.ceil(q * values.length);
    return values[Math.max(0, rank - 1)];
  }

  /**
   * The project: both models, each writing its own topic ({@code latency_changelog_<stamp>}...).
   */
  private Path project(String source, String stamp) throws Exception {
    Path project = dir.resolve("latency");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  orders:\n    connector: kafka\n    topic: "
            + source
            + "\n    format: json\n    schema:\n      customer_id: int64\n"
            + "      amount: decimal(12,2)\n      ordered_at: timestamp\n"
            + "    event_time: ordered_at\n    watermark: 5m\n    late_events: drop\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  "
            + CHANGELOG_MODEL
            + ":\n    materialized: upsert\n    key: [customer_id]\n    retention: 1h\n"
            + "    topic: latency_changelog_"
            + stamp
            + "\n  "
            + WINDOWED_MODEL
            + ":\n    key: [customer_id]\n    window: 1h\n    allowed_lateness: 30m\n"
            + "    topic: latency_revisions_"
            + stamp
            + "\n");
    Files.writeString(
        project.resolve("models/" + CHANGELOG_MODEL + ".sql"),
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders')"
            + " GROUP BY customer_id\n");
    Files.writeString(
        project.resolve("models/" + WINDOWED_MODEL + ".sql"),
        "SELECT customer_id, SUM(amount) AS revenue FROM source('orders') GROUP BY customer_id\n");
    return project;
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, LocalServices.BOOTSTRAP);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }
}

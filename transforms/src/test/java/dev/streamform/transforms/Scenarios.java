package dev.streamform.transforms;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The named scenarios that must give the same outputs on every runner and in every delivery order:
 * the seed's three results (§5, late events both dropped and kept), a multi-partition log, a single
 * partition delivered out of offset order with a duplicate, and quarantine.
 *
 * <p>Each has its source log (items in per-partition offset order), a delivery order, the clock,
 * the model and the exact expected lines (see {@link Scenario} for the line formats).
 */
final class Scenarios {
  private Scenarios() {}

  static final Duration FIVE_MINUTES = Duration.standardMinutes(5);

  static Instant t(String hhmmss) {
    return Instant.parse("2026-08-30T" + hhmmss + "Z");
  }

  static String iso(String hhmmss) {
    return "2026-08-30T" + hhmmss + "Z";
  }

  static KeyedChangelog customerMetrics() {
    return KeyedChangelog.by("customer_id")
        .aggregating(Aggregation.sum("amount").as("total_spend"));
  }

  /** One scenario: what to deliver, through what, and what must come out. */
  static final class Case {
    final List<SourceRecord> delivery;
    final SourceClock clock;
    final KeyedChangelog model;
    final List<String> changelog;
    final List<String> late;
    final List<String> quarantined;

    Case(
        List<SourceRecord> delivery,
        SourceClock clock,
        KeyedChangelog model,
        List<String> changelog,
        List<String> late,
        List<String> quarantined) {
      this.delivery = delivery;
      this.clock = clock;
      this.model = model;
      this.changelog = sorted(changelog);
      this.late = sorted(late);
      this.quarantined = sorted(quarantined);
    }
  }

  static List<String> sorted(List<String> lines) {
    List<String> s = new ArrayList<>(lines);
    s.sort(null);
    return List.copyOf(s);
  }

  static SeedStreams lateEventLog() {
    return new SeedStreams()
        .event(42, "10", "10:00")
        .event(42, "20", "10:10")
        .event(42, "5", "10:01")
        .event(42, "1", "10:06");
  }

  /**
   * Two partitions, each with a late event; partition 1 is far behind partition 0 and still on
   * time; partition 1's key expires by its own punctuation (retention 15m).
   */
  static SeedStreams multiPartitionLog() {
    return new SeedStreams()
        .event(0, 42, "10", iso("10:00:00"))
        .event(0, 42, "5", iso("10:20:00"))
        .event(0, 42, "1", iso("10:10:00"))
        .event(0, 42, "2", iso("10:15:00"))
        .event(1, 7, "3", iso("09:00:00"))
        .event(1, 7, "2", iso("09:10:00"))
        .event(1, 7, "1", iso("09:04:00"))
        .watermark(1, t("09:30:00"))
        .event(1, 7, "4", iso("09:31:00"));
  }

  static final List<String> MULTI_PARTITION_CHANGELOG =
      List.of(
          "p0/0 insert 42 10",
          "p0/1 update 42 15",
          "p0/3 update 42 17",
          "p1/0 insert 7 3",
          "p1/1 update 7 5",
          "p1/4 insert 7 4");
  static final List<String> MULTI_PARTITION_LATE =
      List.of(
          "p0/2 2026-08-30T10:10:00.000Z < 2026-08-30T10:15:00.000Z",
          "p1/2 2026-08-30T09:04:00.000Z < 2026-08-30T09:05:00.000Z");

  /** Round-robin over partitions, each partition in offset order. */
  static List<SourceRecord> alternating(List<SourceRecord> log) {
    Map<Integer, List<SourceRecord>> byPartition = new LinkedHashMap<>();
    for (SourceRecord r : log) {
      byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r);
    }
    List<SourceRecord> out = new ArrayList<>();
    for (int i = 0; out.size() < log.size(); i++) {
      for (List<SourceRecord> part : byPartition.values()) {
        if (i < part.size()) {
          out.add(part.get(i));
        }
      }
    }
    return out;
  }

  /** The items of {@code log} at the given indexes, in that order (indexes may repeat). */
  static List<SourceRecord> pick(List<SourceRecord> log, int... indexes) {
    List<SourceRecord> out = new ArrayList<>();
    for (int i : indexes) {
      out.add(log.get(i));
    }
    return out;
  }

  static SeedStreams quarantineLog() {
    return new SeedStreams()
        .event(0, 42, "1", null)
        .event(0, 42, "2", "yesterday")
        .event(0, 42, "3", "10:00:00")
        .event(0, 42, "4", "+300000-01-01T00:00:00Z")
        .event(0, 42, "10", iso("10:00:00"))
        .event(0, 42, "20", "1788087600000"); // 2026-08-30T11:00:00Z as epoch millis
  }

  static final String NOT_AN_INSTANT =
      "\", which is neither an RFC 3339 instant (2026-08-30T10:00:00Z) nor epoch milliseconds";

  static final List<String> QUARANTINED =
      List.of(
          "partition 0 offset 0: no value for event-time column `ordered_at` | decoded p0/0",
          "partition 0 offset 1: event-time column `ordered_at` holds \"yesterday"
              + NOT_AN_INSTANT
              + " | decoded p0/1",
          "partition 0 offset 2: event-time column `ordered_at` holds \"10:00:00"
              + NOT_AN_INSTANT
              + " | decoded p0/2",
          "partition 0 offset 3: event-time column `ordered_at`: '+300000-01-01T00:00:00Z' is out"
              + " of range: event times lie between 0001-01-01T00:00:00Z and"
              + " 9999-12-31T23:59:59.999Z (epoch milliseconds -62135596800000 to"
              + " 253402300799999) | decoded p0/3");

  /** Every scenario, by name. */
  static Map<String, Case> all() {
    Map<String, Case> cases = new LinkedHashMap<>();
    SourceClock fiveMinutes =
        SourceClock.forBoundedOutOfOrderness(FIVE_MINUTES).withContiguousOffsets();
    cases.put(
        "seedLateDropped",
        new Case(
            lateEventLog().items(),
            fiveMinutes,
            customerMetrics(),
            List.of("p0/0 insert 42 10", "p0/1 update 42 30", "p0/3 update 42 31"),
            List.of("p0/2 2026-08-30T10:01:00.000Z < 2026-08-30T10:05:00.000Z"),
            List.of()));
    cases.put(
        "seedLateKept",
        new Case(
            lateEventLog().items(),
            fiveMinutes.keepingLateEvents(),
            customerMetrics(),
            List.of(
                "p0/0 insert 42 10", "p0/1 update 42 30", "p0/2 update 42 35", "p0/3 update 42 36"),
            List.of(),
            List.of()));
    cases.put(
        "seedWatermarkItems",
        new Case(
            new SeedStreams()
                .event(1, "1", "10:00")
                .event(1, "1", "09:57")
                .watermark("10:20")
                .event(1, "1", "10:15")
                .watermark("10:00")
                .event(1, "1", "10:19")
                .event(1, "1", "10:30")
                .event(1, "1", "10:24")
                .event(1, "1", "10:26")
                .items(),
            fiveMinutes,
            customerMetrics(),
            List.of("p0/0 insert 1 1", "p0/1 update 1 2", "p0/6 update 1 3", "p0/8 update 1 4"),
            List.of(
                "p0/3 2026-08-30T10:15:00.000Z < 2026-08-30T10:20:00.000Z",
                "p0/5 2026-08-30T10:19:00.000Z < 2026-08-30T10:20:00.000Z",
                "p0/7 2026-08-30T10:24:00.000Z < 2026-08-30T10:25:00.000Z"),
            List.of()));
    cases.put(
        "seedRetention",
        new Case(
            new SeedStreams()
                .event(42, "10", "10:00")
                .event(7, "3", "10:08")
                .watermark("10:10")
                .event(42, "5", "10:11")
                .event(7, "1", "10:12")
                .items(),
            fiveMinutes,
            customerMetrics().withRetention(Duration.standardMinutes(10)),
            List.of("p0/0 insert 42 10", "p0/1 insert 7 3", "p0/3 insert 42 5", "p0/4 update 7 4"),
            List.of(),
            List.of()));
    List<SourceRecord> late = lateEventLog().items();
    cases.put(
        "reorderedWithDuplicate",
        new Case(
            pick(late, 2, 0, 3, 0, 1, 2),
            fiveMinutes,
            customerMetrics(),
            List.of("p0/0 insert 42 10", "p0/1 update 42 30", "p0/3 update 42 31"),
            List.of("p0/2 2026-08-30T10:01:00.000Z < 2026-08-30T10:05:00.000Z"),
            List.of()));
    cases.put(
        "multiPartition",
        new Case(
            alternating(multiPartitionLog().items()),
            fiveMinutes,
            customerMetrics().withRetention(Duration.standardMinutes(15)),
            MULTI_PARTITION_CHANGELOG,
            MULTI_PARTITION_LATE,
            List.of()));
    cases.put(
        "quarantine",
        new Case(
            quarantineLog().items(),
            fiveMinutes,
            customerMetrics(),
            List.of("p0/4 insert 42 10", "p0/5 update 42 30"),
            List.of(),
            QUARANTINED));
    return cases;
  }

  /** Adds every scenario to {@code p}, each writing its outputs under {@code dir/<name>}. */
  static void addAll(Pipeline p, Path dir) {
    all()
        .forEach(
            (name, c) ->
                Scenario.of(p, name, c.delivery, c.clock, c.model)
                    .writeTo(name, dir.resolve(name)));
  }
}

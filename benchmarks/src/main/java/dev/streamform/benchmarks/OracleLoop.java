package dev.streamform.benchmarks;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.oracle.WindowedOutcome;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code oracle}: the reference implementation ({@link Oracle}) over the workload as one
 * single-threaded loop. Its time includes turning the workload into fixture items (maps of column
 * values, as a fixture file reads), as the Beam pipelines' time includes building rows.
 *
 * <p>The oracle holds every applied event of a key and recomputes the aggregate from them: it is
 * written to be obviously right, not fast, and its memory grows with the events, not the keys.
 */
final class OracleLoop {
  private OracleLoop() {}

  static FixtureOutcome run(Workload w, DeclaredModel model) {
    return Oracle.of(model).run(fixture(w, model));
  }

  /** The windowed oracle over the workload ({@link WindowedOracle}), for {@code hourly_revenue}. */
  static WindowedOutcome runWindowed(Workload w, DeclaredModel model) {
    return WindowedOracle.of(model).run(fixture(w, model));
  }

  /** What a windowed streamform run must count: records, their digest, finals, too-late rows. */
  static Map<String, Long> windowedCounters(WindowedOutcome outcome) {
    Map<String, Long> c = new TreeMap<>();
    c.put("outputs", (long) outcome.rows().size());
    c.put("window_revisions", (long) outcome.revisionsEmitted());
    c.put("windows_finalized", (long) outcome.windowsFinalized());
    c.put("window_late_rows", (long) outcome.lateEventsDropped());
    long digest = 0;
    for (WindowedOutcome.Row r : outcome.rows()) {
      digest +=
          BeamPipelines.windowDigest(
              r.status().yamlName(),
              r.revision(),
              r.windowStart().toEpochMilli(),
              r.key().get("customer_id"),
              r.values().get("revenue"));
    }
    c.put("values_digest", digest);
    return c;
  }

  private static Fixture fixture(Workload w, DeclaredModel model) {
    Fixture.Builder items = Fixture.builder("benchmark", model.model().name());
    for (int i = 0; i < w.events; i++) {
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("customer_id", w.customerId[i]);
      values.put("amount", w.amount(i));
      values.put("ordered_at", Instant.ofEpochMilli(w.eventTime[i]));
      items.event(w.partition[i], values);
    }
    return items.build();
  }

  static Map<String, Long> counters(FixtureOutcome outcome) {
    Map<String, Long> c = new TreeMap<>();
    c.put("processed", (long) outcome.processed);
    c.put("late_events_dropped", (long) outcome.late.size());
    c.put("outputs", (long) outcome.changelog.size());
    c.put("inserts", outcome.changelog.stream().filter(ch -> ch.op.equals("insert")).count());
    long digest = 0;
    for (FixtureOutcome.Change ch : outcome.changelog) {
      digest +=
          BeamPipelines.valuesDigest(
              ch.eventId, ch.op, ch.values.get("customer_id"), ch.values.get("total_spend"));
    }
    c.put("values_digest", digest);
    return c;
  }

  /**
   * The keys holding state after the last event, from the oracle's changelog: with retention, a key
   * whose {@code latest + retention} is beyond its partition's final watermark (docs/semantics.md
   * §3: its state is dropped once {@code W_p >= latest + retention}); without retention, every key
   * that ever had an event applied.
   */
  static long[] liveKeys(Workload w, FixtureOutcome outcome) {
    Map<Long, Long> latest = new HashMap<>();
    long[] watermark = new long[w.partitions];
    java.util.Arrays.fill(watermark, Long.MIN_VALUE);
    for (FixtureOutcome.Change change : outcome.changelog) {
      String[] id = change.eventId.split("-");
      int p = Integer.parseInt(id[0]);
      int i = w.byPartition[p][Integer.parseInt(id[1])];
      long t = w.eventTime[i];
      if (change.op.equals("insert")) {
        latest.put(w.customerId[i], t); // a new life: latest starts over
      } else {
        latest.merge(w.customerId[i], t, Math::max);
      }
      watermark[p] = Math.max(watermark[p], t - Workload.WATERMARK.toMillis());
    }
    long retained = 0;
    for (Map.Entry<Long, Long> e : latest.entrySet()) {
      int p = (int) (e.getKey() % w.partitions);
      if (watermark[p] < e.getValue() + Workload.RETENTION.toMillis()) {
        retained++;
      }
    }
    return new long[] {retained, latest.size()};
  }

  /**
   * The keys the contract keeps once the first {@code read[p]} events of each partition {@code p}
   * are applied (docs/semantics.md §3: a key's state is gone once {@code W_p >= latest +
   * retention}, {@code W_p} its partition's watermark; late events dropped, as the benchmark's
   * model does), and, second, the keys any stage that frees state by one watermark over all
   * partitions must still hold then: those whose {@code latest + retention} is beyond the least
   * {@code W_p} (a key's next event may come from any partition, so no state can be freed before
   * every partition's watermark has passed it). Keys are in partition {@code customer_id %
   * partitions} ({@link Workload}).
   */
  static long[] liveKeysAt(Workload w, long[] read) {
    Map<Long, Long> latest = new HashMap<>();
    long[] watermark = new long[w.partitions];
    long delay = Workload.WATERMARK.toMillis();
    for (int p = 0; p < w.partitions; p++) {
      watermark[p] = Long.MIN_VALUE;
      int[] indexes = w.byPartition[p];
      long n = p < read.length ? Math.min(read[p], indexes.length) : 0;
      for (int j = 0; j < n; j++) {
        int i = indexes[j];
        long t = w.eventTime[i];
        if (watermark[p] != Long.MIN_VALUE && t < watermark[p]) {
          continue; // late: dropped, it applies nothing
        }
        // the latest of the current life: a new life's events are later than the old latest
        latest.merge(w.customerId[i], t, Math::max);
        watermark[p] = Math.max(watermark[p], t - delay);
      }
    }
    long least = Long.MAX_VALUE;
    for (long wp : watermark) {
      least = Math.min(least, wp);
    }
    long retention = Workload.RETENTION.toMillis();
    long kept = 0;
    long held = 0;
    for (Map.Entry<Long, Long> e : latest.entrySet()) {
      int p = (int) (e.getKey() % w.partitions);
      if (watermark[p] < e.getValue() + retention) {
        kept++;
      }
      if (least < e.getValue() + retention) {
        held++;
      }
    }
    return new long[] {kept, held};
  }
}

package dev.streamform.transforms;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;

/**
 * The Beam metrics Streamform's transforms report, all in namespace {@value #NAMESPACE}. Together
 * they account for every record read: {@code events_quarantined + late_events_dropped +
 * duplicate_events_dropped + events_filtered + events_processed + punctuations_read} equals {@code
 * records_read}. A windowed model counts an event in {@code late_events_dropped} when every window
 * containing it refused it.
 */
public final class StreamformMetrics {
  public static final String NAMESPACE = "streamform";
  public static final String QUARANTINED = "events_quarantined";
  public static final String LATE_DROPPED = "late_events_dropped";
  public static final String LATE_KEPT = "late_events_kept";
  public static final String ON_TIME = "events_on_time";
  public static final String PROCESSED = "events_processed";
  public static final String CHANGELOG = "changelog_records";
  public static final String EXPIRED = "keys_expired";

  /**
   * Keys whose changelog state is held now: +1 when a key's state is created (its {@code INSERT}),
   * −1 when retention frees it; so its value after a run is the state left behind, measured in the
   * pipeline rather than inferred from its output.
   */
  public static final String KEYS_LIVE = "keys_live";

  /**
   * Event-time timers a keyed changelog set (armed or moved). On arrival a key arms one timer when
   * none is armed and moves it only when it fires early (the key was touched since): far fewer than
   * one per event; the log-order hand-over sets one when a key's earliest due time moves.
   */
  public static final String TIMERS_SET = "changelog_timers_set";

  /**
   * A distribution: the encoded bytes of one key's keyed state (its key, aggregate or windows and
   * its timer bookkeeping; not the events waiting in the hand-over's buffer), sampled every {@link
   * StateBytes#EVERY}th state write of a stage; its mean is bytes of state per live key.
   */
  public static final String STATE_BYTES = "state_bytes_per_key";

  /** Items whose offset a contiguous-offsets clock had judged already, or held already. */
  public static final String DUPLICATES = "duplicate_offsets_ignored";

  /** Events dropped as repeats of an earlier event with the same {@code event_id} and payload. */
  public static final String DUPLICATES_DROPPED = "duplicate_events_dropped";

  /**
   * Timers the duplicate detection set on arrival to free ids (one per key, set again once per
   * firing while ids are left).
   */
  public static final String ID_TIMERS_SET = "event_id_timers_set";

  /** Event ids whose duplicate horizon passed, so their state was freed. */
  public static final String IDS_FORGOTTEN = "event_ids_forgotten";

  /** Items a contiguous-offsets clock held back until an earlier offset of their partition came. */
  public static final String OFFSETS_BUFFERED = "offsets_buffered";

  /** Items of a partition that reached the clock after a later offset (arrival-order clocks). */
  public static final String OUT_OF_ORDER = "offsets_out_of_order";

  /** Window revisions emitted (on time and corrected). */
  public static final String REVISIONS = "window_revisions";

  /** Final records emitted (one per key and window). */
  public static final String WINDOWS_FINALIZED = "windows_finalized";

  /**
   * Windows (per key) whose state is held now: +1 when a window's state is created, −1 when its
   * final record frees it.
   */
  public static final String WINDOWS_LIVE = "windows_live";

  /** Events refused by a window as too late (one per refused window). */
  public static final String WINDOW_LATE = "window_late_rows";

  /** On-time events that reached their window after its revision 1 (see WindowedAggregate). */
  public static final String ON_TIME_AFTER_REVISION = "on_time_after_revision";

  /**
   * Records a source read (for a file: its non-blank lines), punctuations and bad ones included.
   */
  public static final String RECORDS_READ = "records_read";

  /** Punctuation records ({@code {"__watermark": ...}}) a source read. */
  public static final String PUNCTUATIONS_READ = "punctuations_read";

  /** Events the model's WHERE selected away (judged by the clock, not applied). */
  public static final String FILTERED = "events_filtered";

  /**
   * Output rows too large for the Kafka producer, written to the quarantine topic in their place
   * (docs/decisions/0199); not an event count.
   */
  public static final String ROWS_TOO_LARGE_FOR_KAFKA = "rows_too_large_for_kafka";

  private StreamformMetrics() {}

  /**
   * A Beam counter {@code name} in namespace {@value #NAMESPACE} that also adds to this JVM's tally
   * of that name ({@link #countedInThisJvm}), which a run in this process reads while its job runs.
   */
  public static Counter counter(String name) {
    return new Tallied(Metrics.counter(NAMESPACE, name));
  }

  /**
   * A counter for a DoFn's per-element path that adds up in the DoFn instance and reports the sum
   * to Beam (and to this JVM's tally) only when the DoFn calls {@link BundleCounter#flush()}, which
   * it does in its {@code @FinishBundle}: one Beam counter update per bundle instead of one per
   * element. Every runner finishes each bundle (timer firings included) before it commits the
   * bundle's metrics, so the totals after the job are the same (ADR 0173).
   */
  public static BundleCounter perBundle(String name) {
    return new BundleCounter(counter(name));
  }

  /** See {@link #perBundle}. A DoFn instance runs one bundle at a time: a plain field will do. */
  public static final class BundleCounter implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Counter counter;
    private transient long pending;

    /**
     * Moved since the last flush, even if by nothing in sum: it is reported then (as 0), so a
     * counter exists in the job's metrics exactly when the step moved it, as with a Beam counter.
     */
    private transient boolean moved;

    private BundleCounter(Counter counter) {
      this.counter = counter;
    }

    public void inc() {
      pending++;
      moved = true;
    }

    public void inc(long n) {
      pending += n;
      moved = true;
    }

    public void dec() {
      pending--;
      moved = true;
    }

    /** Reports what was counted since the last flush; the DoFn's {@code @FinishBundle} calls it. */
    public void flush() {
      if (moved) {
        long n = pending;
        pending = 0;
        moved = false;
        counter.inc(n);
      }
    }

    /** Flushes each of {@code counters}. */
    public static void flush(BundleCounter... counters) {
      for (BundleCounter c : counters) {
        c.flush();
      }
    }
  }

  private static final ConcurrentHashMap<String, LongAdder> IN_THIS_JVM = new ConcurrentHashMap<>();

  /**
   * What every counter of this class in this JVM has counted so far, by name, whichever runner runs
   * it here (the DirectRunner, embedded Flink; a cluster's workers tally in their own JVMs): for
   * progress while a job runs, whose Beam metrics a runner gives only when it ends. A counter never
   * counted is absent.
   */
  public static Map<String, Long> countedInThisJvm() {
    Map<String, Long> counted = new TreeMap<>();
    IN_THIS_JVM.forEach((name, adder) -> counted.put(name, adder.sum()));
    return counted;
  }

  /** A Beam counter that also adds to {@link #IN_THIS_JVM}. */
  private static final class Tallied implements Counter, Serializable {
    private static final long serialVersionUID = 1L;
    private final Counter beam;
    private transient LongAdder tally;

    Tallied(Counter beam) {
      this.beam = beam;
    }

    private LongAdder tally() {
      LongAdder t = tally;
      if (t == null) {
        t = IN_THIS_JVM.computeIfAbsent(beam.getName().getName(), n -> new LongAdder());
        tally = t;
      }
      return t;
    }

    @Override
    public void inc() {
      beam.inc();
      tally().increment();
    }

    @Override
    public void inc(long n) {
      beam.inc(n);
      tally().add(n);
    }

    @Override
    public void dec() {
      beam.dec();
      tally().decrement();
    }

    @Override
    public void dec(long n) {
      beam.dec(n);
      tally().add(-n);
    }

    @Override
    public MetricName getName() {
      return beam.getName();
    }
  }

  /**
   * A counter's value after its job ended: the committed value where the runner keeps one, else the
   * attempted one. The DirectRunner reports a bundle's attempted values only after it has committed
   * the bundle, and so after the job may have ended: a job's last bundles (a sink's writes at the
   * end of input among them) can be missing from its attempted values when they are read, while its
   * committed values are updated before the bundle's output counts as done (docs/decisions/0147).
   * The Flink runner keeps attempted values only, final once the job ended.
   */
  public static long valueAfterJob(MetricResult<Long> counter) {
    // not the larger of the two: a counter may be a sum of hashes, negative (values_digest)
    Long value = counter.hasCommitted() ? counter.getCommittedOrNull() : counter.getAttempted();
    return value == null ? 0 : value;
  }

  /**
   * The counters of {@code result} in namespace {@value #NAMESPACE}, by name, summed over the steps
   * whose full name starts with {@code stepPrefix} ({@code ""}: every step): one pipeline's, or one
   * part's of a pipeline that runs several side by side under their own prefixes.
   */
  public static Map<String, Long> counters(PipelineResult result, String stepPrefix) {
    return counters(result, List.of(stepPrefix)).get(0);
  }

  /**
   * {@link #counters(PipelineResult, String)} for each of {@code stepPrefixes}, in their order,
   * from one settled read of the job's metrics: the parts of one pipeline read together, not one by
   * one.
   */
  public static List<Map<String, Long>> counters(PipelineResult result, List<String> stepPrefixes) {
    // the DirectRunner can publish a finished job's last bundles' metrics just after the job ended
    // (a run printed 5,500 of 6,000 decisions written, committed and attempted alike at times):
    // read again until two reads 20 ms apart agree, for at most 2 s
    List<Map<String, Long>> last = readCounters(result, stepPrefixes);
    for (int i = 0; i < 100; i++) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return last;
      }
      List<Map<String, Long>> now = readCounters(result, stepPrefixes);
      if (now.equals(last)) {
        return now;
      }
      last = now;
    }
    return last;
  }

  private static List<Map<String, Long>> readCounters(
      PipelineResult result, List<String> stepPrefixes) {
    MetricQueryResults metrics =
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.inNamespace(NAMESPACE))
                    .build());
    List<Map<String, Long>> all = new ArrayList<>();
    for (String stepPrefix : stepPrefixes) {
      Map<String, Long> counters = new LinkedHashMap<>();
      for (MetricResult<Long> c : metrics.getCounters()) {
        String step = c.getKey().stepName();
        if (stepPrefix.isEmpty() || (step != null && step.startsWith(stepPrefix))) {
          counters.merge(c.getName().getName(), valueAfterJob(c), Long::sum);
        }
      }
      all.add(counters);
    }
    return all;
  }
}

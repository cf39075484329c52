package dev.streamform.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * Live state, read from the running pipeline: a Flink {@link MetricReporter} registered in the
 * embedded cluster (through a {@code flink-conf.yaml} the Beam runner's {@code flinkConfDir} points
 * at, and the native job's configuration) keeps every counter named {@code ...keys_live} or {@code
 * ...windows_live} — Beam's {@code streamform} counters as the Flink runner forwards them at each
 * bundle's end, or the native job's own — and a sampler thread sums them over subtasks every
 * {@value #SAMPLE_MILLIS} ms together with {@link WorkloadSource#READ}, the records read so far. So
 * "state after N events" is what the pipeline itself counted, not what the oracle says it should
 * hold.
 */
final class LiveMetrics {
  static final long SAMPLE_MILLIS = 50;

  /** How many partitions' read counts a sample carries after {records read, live state}. */
  static final int PARTITIONS_SAMPLED = 8;

  /** The live counters by their identity (name plus scope), per JVM. */
  private static final Map<String, Counter> LIVE = new ConcurrentHashMap<>();

  private LiveMetrics() {}

  /** A directory holding a {@code flink-conf.yaml} that registers this reporter. */
  static Path confDir(Path under) throws IOException {
    Path dir = under.resolve("flink-conf");
    Files.createDirectories(dir);
    StringBuilder yaml = new StringBuilder();
    configuration().toMap().forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
    Files.writeString(dir.resolve("flink-conf.yaml"), yaml.toString());
    return dir;
  }

  /** The Flink configuration entries that register this reporter. */
  static Configuration configuration() {
    Configuration c = new Configuration();
    c.setString("metrics.reporter.live.factory.class", Factory.class.getName());
    return c;
  }

  /** Forgets the counters of earlier runs. */
  static void reset() {
    LIVE.clear();
    WorkloadSource.READ.set(0);
    for (int p = 0; p < WorkloadSource.READ_BY_PARTITION.length(); p++) {
      WorkloadSource.READ_BY_PARTITION.set(p, 0);
    }
  }

  /** The sum of the live counters now. */
  static long liveNow() {
    long sum = 0;
    for (Counter c : LIVE.values()) {
      sum += c.getCount();
    }
    return sum;
  }

  /** Samples (records read, live state) while a run goes on; {@link #stop()} returns them. */
  static final class Sampler implements AutoCloseable {
    private final List<long[]> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    Sampler() {
      reset();
      thread =
          new Thread(
              () -> {
                long lastRead = -1;
                while (running) {
                  long read = WorkloadSource.READ.get();
                  if (read != lastRead) {
                    // each partition's progress too: the oracle's live state at this point
                    // (OracleLoop.liveKeysAt) depends on how far each partition is read
                    long[] sample = new long[2 + PARTITIONS_SAMPLED];
                    for (int p = 0; p < PARTITIONS_SAMPLED; p++) {
                      sample[2 + p] = WorkloadSource.READ_BY_PARTITION.get(p);
                    }
                    sample[0] = read;
                    sample[1] = liveNow();
                    synchronized (samples) {
                      samples.add(sample);
                    }
                    lastRead = read;
                  }
                  try {
                    Thread.sleep(SAMPLE_MILLIS);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "live-state-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    /**
     * {records read, live keys or windows, then the records read of partitions 0 to {@value
     * #PARTITIONS_SAMPLED} - 1} at each sample.
     */
    List<long[]> stop() {
      running = false;
      thread.interrupt();
      try {
        thread.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (samples) {
        return new ArrayList<>(samples);
      }
    }

    @Override
    public void close() {
      stop();
    }
  }

  /** The reporter: keeps the live counters as they are registered. */
  public static final class Reporter implements MetricReporter {
    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
      if (metric instanceof Counter
          && (name.endsWith("keys_live") || name.endsWith("windows_live"))) {
        LIVE.put(
            group.getMetricIdentifier(name) + "@" + System.identityHashCode(metric),
            (Counter) metric);
      }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
      // kept: the last value of a finished task is the state it left behind
    }
  }

  /** Found by Flink through {@code META-INF/services}. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new Reporter();
    }
  }
}

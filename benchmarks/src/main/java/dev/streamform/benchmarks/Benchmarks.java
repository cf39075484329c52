package dev.streamform.benchmarks;

import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.planner.DeclaredModel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.schemas.Schema;

/**
 * The benchmark harness: every pipeline side by side in one JVM, in rounds (one warm-up round,
 * then {@code --repeats} measured rounds, each running every pipeline once, so that the machine's
 * load at any moment hits all of them alike); events/s is the median over the measured rounds and
 * is compared as ratios. Prints the table and writes {@code results.json}.
 *
 * <p>Usage: {@code Benchmarks [--quick] [--events N] [--direct-events N] [--repeats R]
 * [--partitions P] [--seed S] [--only name,name] [--fixtures DIR] [--out DIR]}.
 */
public final class Benchmarks {
  private static final int PARALLELISM = 2;

  /** One pipeline on one runner. */
  private static final class Case {
    final String pipeline;
    final String runner;
    final Workload workload;
    final Callable<Map<String, Long>> run;
    final List<Double> rates = new ArrayList<>();
    final List<Double> heaps = new ArrayList<>();
    Map<String, Long> counters = Map.of();
    long[] liveKeys; // {with retention, without}, when known
    String state = "";

    Case(String pipeline, String runner, Workload workload, Callable<Map<String, Long>> run) {
      this.pipeline = pipeline;
      this.runner = runner;
      this.workload = workload;
      this.run = run;
    }

    double median() {
      double[] s = rates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return s.length == 0 ? 0 : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    double peakHeap() {
      return heaps.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = options(args);
    boolean quick = opt.containsKey("quick");
    int events = Integer.parseInt(opt.getOrDefault("events", quick ? "100000" : "1000000"));
    int directEvents =
        Math.min(events, Integer.parseInt(opt.getOrDefault("direct-events", quick ? "20000" : "50000")));
    int repeats = Integer.parseInt(opt.getOrDefault("repeats", "3"));
    int partitions = Integer.parseInt(opt.getOrDefault("partitions", "2"));
    long seed = Long.parseLong(opt.getOrDefault("seed", "20260830"));
    List<String> only = opt.containsKey("only") ? Arrays.asList(opt.get("only").split(",")) : null;
    Path out = Path.of(opt.getOrDefault("out", "benchmarks/target"));
    Path projectDir = Path.of(opt.getOrDefault("project", "benchmarks/project"));

    DeclaredModel model = DeclaredModel.of(Project.load(projectDir), "customer_metrics");
    Schema schema = model.recordSchema();
    Workload full = Workload.of(events, partitions, seed);
    Workload capped = Workload.of(directEvents, partitions, seed);

    List<Case> cases = new ArrayList<>();
    cases.add(new Case("streamform", "direct", capped,
        () -> BeamPipelines.run(BeamPipelines.streamform(BeamPipelines.direct(), capped, model))));
    cases.add(new Case("plain-beam", "direct", capped,
        () -> BeamPipelines.run(BeamPipelines.plainBeam(BeamPipelines.direct(), capped, schema))));
    cases.add(new Case("streamform", "flink-p" + PARALLELISM, full,
        () -> BeamPipelines.run(BeamPipelines.streamform(BeamPipelines.flink(PARALLELISM), full, model))));
    cases.add(new Case("plain-beam", "flink-p" + PARALLELISM, full,
        () -> BeamPipelines.run(BeamPipelines.plainBeam(BeamPipelines.flink(PARALLELISM), full, schema))));
    cases.add(new Case("native-flink", "flink-p" + PARALLELISM, full,
        () -> NativeFlink.run(full, PARALLELISM)));
    Map<Workload, FixtureOutcome> oracleOutcome = new LinkedHashMap<>();
    cases.add(new Case("oracle", "jvm", full, () -> {
      FixtureOutcome o = OracleLoop.run(full, model);
      oracleOutcome.put(full, o);
      return OracleLoop.counters(o);
    }));
    if (only != null) {
      cases.removeIf(c -> !only.contains(c.pipeline) && !only.contains(c.pipeline + "/" + c.runner));
    }

    System.out.printf(Locale.ROOT,
        "workload: %,d events (direct runner: %,d), %,d keys, %d partitions, seed %d; %d warm-up + %d measured rounds%n",
        events, directEvents, Workload.KEYS, partitions, seed, 1, repeats);
    for (int round = 0; round <= repeats; round++) {
      for (Case c : cases) {
        if (System.console() != null) {
          // progress on a terminal only (stays quiet when piped): what runs now, before its line
          System.err.printf(Locale.ROOT, "\r%s %s on %s...%20s\r", round == 0 ? "warm-up" : "round " + round + "/" + repeats,
              c.pipeline, c.runner, "");
          System.err.flush();
        }
        System.gc();
        resetPeaks();
        long start = System.nanoTime();
        Map<String, Long> counters = c.run.call();
        double seconds = (System.nanoTime() - start) / 1e9;
        double heap = peakHeapMb();
        c.counters = counters;
        System.out.printf(Locale.ROOT, "  %s %-12s %-9s %,9d events %7.2f s %,10.0f ev/s heap %5.0f MB %s%n",
            round == 0 ? "warm-up " : "round " + round + " ", c.pipeline, c.runner, c.workload.events,
            seconds, c.workload.events / seconds, heap, counters);
        if (round > 0) {
          c.rates.add(c.workload.events / seconds);
          c.heaps.add(heap);
        }
      }
    }

    // state after N events: the oracle's logical state (it is what every runner must hold, since
    // retention is exact in event time); native Flink's as its own timers freed it
    Map<Workload, long[]> logical = new LinkedHashMap<>();
    for (Workload w : List.of(full, capped)) {
      FixtureOutcome o = oracleOutcome.containsKey(w) ? oracleOutcome.get(w) : OracleLoop.run(w, model);
      oracleOutcome.put(w, o);
      logical.put(w, OracleLoop.liveKeys(w, o));
    }
    for (Case c : cases) {
      long[] keys = logical.get(c.workload);
      Map<String, Long> expected = OracleLoop.counters(oracleOutcome.get(c.workload));
      switch (c.pipeline) {
        case "streamform":
          c.liveKeys = keys;
          boolean same = expected.get("late_events_dropped").equals(c.counters.get("late_events_dropped"))
              && expected.get("outputs").equals(c.counters.get("outputs"))
              && expected.get("inserts").equals(c.counters.get("inserts"))
              && expected.get("values_digest").equals(c.counters.get("values_digest"));
          c.state = same
              ? "= oracle (late, changelog values, inserts)"
              : "DIFFERS from oracle " + expected;
          break;
        case "oracle":
          c.liveKeys = keys;
          c.state = "logical state after the last event";
          break;
        case "plain-beam":
          c.liveKeys = new long[] {-1, keys[1]};
          c.state = "no retention: a combine accumulator per key, forever";
          break;
        case "native-flink":
          long inserts = c.counters.getOrDefault("inserts", 0L);
          long expired = c.counters.getOrDefault("keys_expired_before_end", 0L);
          c.liveKeys = new long[] {inserts - expired, keys[1]};
          c.state = "its timers; late " + c.counters.get("late_events_dropped") + " vs oracle "
              + expected.get("late_events_dropped");
          break;
        default:
      }
    }

    Double plainFlink = medianOf(cases, "plain-beam", "flink-p" + PARALLELISM);
    Double plainDirect = medianOf(cases, "plain-beam", "direct");
    Double nativeFlink = medianOf(cases, "native-flink", "flink-p" + PARALLELISM);
    StringBuilder table = new StringBuilder();
    table.append(String.format(Locale.ROOT, "| %-12s | %-8s | %9s | %10s | %8s | %8s | %7s | %-17s | %s |%n",
        "pipeline", "runner", "events", "events/s", "/ plain", "/ native", "heap MB", "live keys ret/none", "notes"));
    table.append("|---|---|--:|--:|--:|--:|--:|---|---|\n");
    StringBuilder json = new StringBuilder("[\n");
    for (Case c : cases) {
      double m = c.median();
      Double plain = c.runner.equals("direct") ? plainDirect : plainFlink;
      String keys = c.liveKeys == null ? "" : (c.liveKeys[0] < 0 ? "-" : String.valueOf(c.liveKeys[0])) + " / " + c.liveKeys[1];
      table.append(String.format(Locale.ROOT, "| %-12s | %-8s | %,9d | %,10.0f | %8s | %8s | %7.0f | %-17s | %s |%n",
          c.pipeline, c.runner, c.workload.events, m, ratio(m, plain), ratio(m, nativeFlink),
          c.peakHeap(), keys, c.state));
      json.append(String.format(Locale.ROOT,
          "  {\"pipeline\": \"%s\", \"runner\": \"%s\", \"events\": %d, \"events_per_s\": %.1f, \"peak_heap_mb\": %.1f, "
              + "\"runs_events_per_s\": %s, \"ratio_to_plain_beam\": %s, \"ratio_to_native_flink\": %s, "
              + "\"live_keys_with_retention\": %s, \"live_keys_without_retention\": %s, \"counters\": %s},%n",
          c.pipeline, c.runner, c.workload.events, m, c.peakHeap(), c.rates.toString(),
          ratioJson(m, plain), ratioJson(m, nativeFlink),
          c.liveKeys == null || c.liveKeys[0] < 0 ? "null" : c.liveKeys[0],
          c.liveKeys == null ? "null" : c.liveKeys[1], jsonMap(c.counters)));
    }

    if (opt.containsKey("fixtures")) {
      Path fixtures = Path.of(opt.get("fixtures"));
      double[] warm = fixtureSuiteTwice(fixtures);
      System.out.printf(Locale.ROOT,
          "%nstreamform test %s in this JVM: first suite %.2f s, second suite %.2f s, %d fixtures: %.2f s per fixture warm%n",
          fixtures, warm[0], warm[1], (int) warm[2], warm[1] / warm[2]);
      json.append(String.format(Locale.ROOT,
          "  {\"pipeline\": \"fixture-suite-warm\", \"runner\": \"direct\", \"events\": 0, \"events_per_s\": null, "
              + "\"peak_heap_mb\": null, \"fixtures\": %d, \"first_suite_s\": %.3f, \"second_suite_s\": %.3f, "
              + "\"per_fixture_warm_s\": %.3f},%n",
          (int) warm[2], warm[0], warm[1], warm[1] / warm[2]));
    }
    String results = json.substring(0, json.length() - 2) + "\n]\n";
    System.out.printf("%n%s, %s%n%n%s", LocalDate.now(), machine(), table);
    Files.createDirectories(out);
    Files.writeString(out.resolve("results.json"), results);
    Files.writeString(out.resolve("table.md"), table.toString());
    System.out.println("\nwrote " + out.resolve("results.json"));
  }

  /** Runs the fixture suite at {@code path} twice on the DirectRunner; {first s, second s, fixtures}. */
  private static double[] fixtureSuiteTwice(Path path) throws Exception {
    double[] times = new double[3];
    for (int i = 0; i < 2; i++) {
      StringWriter text = new StringWriter();
      FixtureSuite suite = new FixtureSuite(FixtureRunner.on(RunnerChoice.direct()), new PrintWriter(text));
      long start = System.nanoTime();
      boolean passed = suite.run(path);
      times[i] = (System.nanoTime() - start) / 1e9;
      times[2] = suite.passed() + suite.failed();
      if (!passed) {
        throw new IllegalStateException("fixtures failed:\n" + text);
      }
    }
    return times;
  }

  private static Double medianOf(List<Case> cases, String pipeline, String runner) {
    return cases.stream().filter(c -> c.pipeline.equals(pipeline) && c.runner.equals(runner))
        .map(Case::median).findFirst().orElse(null);
  }

  private static String ratio(double m, Double base) {
    return base == null || base == 0 ? "-" : String.format(Locale.ROOT, "%.2f", m / base);
  }

  private static String ratioJson(double m, Double base) {
    return base == null || base == 0 ? "null" : String.format(Locale.ROOT, "%.3f", m / base);
  }

  private static String jsonMap(Map<String, Long> m) {
    StringBuilder b = new StringBuilder("{");
    m.forEach((k, v) -> b.append(b.length() > 1 ? ", " : "").append('"').append(k).append("\": ").append(v));
    return b.append('}').toString();
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** The sum of the heap pools' peak usage since {@link #resetPeaks()}, in MB. */
  private static double peakHeapMb() {
    long bytes = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        bytes += pool.getPeakUsage().getUsed();
      }
    }
    return bytes / (1024.0 * 1024.0);
  }

  private static String machine() {
    return Runtime.getRuntime().availableProcessors() + " cores, max heap "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB, load average "
        + String.format(Locale.ROOT, "%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
        + " at the end, Java " + System.getProperty("java.version");
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> opt = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + args[i]);
      }
      String name = args[i].substring(2);
      if (name.equals("quick")) {
        opt.put(name, "");
      } else if (i + 1 < args.length) {
        opt.put(name, args[++i]);
      } else {
        throw new IllegalArgumentException("--" + name + " needs a value");
      }
    }
    return opt;
  }

  private Benchmarks() {}
}

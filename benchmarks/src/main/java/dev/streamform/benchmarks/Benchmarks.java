package dev.streamform.benchmarks;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
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

/**
 * The benchmark harness: every pipeline side by side in one JVM, in rounds (one warm-up round, then
 * {@code --repeats} measured rounds, each running every pipeline once, so that the machine's load
 * at any moment hits all of them alike); events/s is the median over the measured rounds and is
 * compared as ratios. Prints the table and writes {@code results.json} and {@code benchmarks.png}
 * ({@link Charts}); live state is sampled from each Flink pipeline while it runs ({@link
 * LiveMetrics}). Exits 1 when a streamform answer differs from the oracle's, values included.
 *
 * <p>Usage: {@code Benchmarks [--quick] [--events N] [--direct-events N] [--repeats R]
 * [--partitions P] [--seed S] [--only name,name] [--object-reuse true] [--fixtures DIR] [--out
 * DIR]}. The Streamform rows run with the options {@code streamform run} gives the runner (on
 * Flink: object reuse); {@code --object-reuse true} sets it for the Beam baselines too.
 */
public final class Benchmarks {
  private static final int PARALLELISM = 2;

  /** One pipeline on one runner. */
  static final class Case {
    final String pipeline;
    final String runner;
    final Workload workload;
    final Callable<Map<String, Long>> run;
    final List<Double> rates = new ArrayList<>();
    final List<Double> heaps = new ArrayList<>();

    /**
     * The JVM's CPU time per event of each measured round, in µs (every thread: the job's, Flink's,
     * the JIT's and the collector's): steadier than events/s on a machine shared with other work,
     * so the measure for two builds side by side.
     */
    final List<Double> cpuPerEvent = new ArrayList<>();

    /** The last round's counters (what the table and results.json show). */
    Map<String, Long> counters = Map.of();

    /**
     * Every round's counters, the warm-up first: each is checked against the oracle, since a run
     * that answers right once and wrong once (a race, a state left over from the warm-up) is wrong.
     */
    final List<Map<String, Long>> rounds = new ArrayList<>();

    /** {records read, live keys or windows} sampled from the pipeline in the last round. */
    List<long[]> live = List.of();

    /**
     * Live keys over the oracle's at the same reads ({@link #liveVsOracle}): {median, max, median
     * of the one-watermark bound over the oracle's, samples}, or null.
     */
    double[] liveVsOracle;

    /** What the oracle says it must count, for the cases checked against it. */
    Map<String, Long> expected;

    String state = "";
    boolean differs;

    Case(String pipeline, String runner, Workload workload, Callable<Map<String, Long>> run) {
      this.pipeline = pipeline;
      this.runner = runner;
      this.workload = workload;
      this.run = run;
    }

    String label() {
      return pipeline + " " + runner;
    }

    double median() {
      return median(rates);
    }

    static double median(List<Double> values) {
      double[] s = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return s.length == 0
          ? 0
          : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    double peakHeap() {
      return heaps.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    /** The live keys (or windows) of the last sample: the state after (about) the last event. */
    Long lastLive() {
      return live.isEmpty() ? null : live.get(live.size() - 1)[1];
    }
  }

  /** The keys a check against the oracle compares, per kind of pipeline. */
  static final List<String> CHANGELOG_CHECK =
      List.of("late_events_dropped", "outputs", "inserts", "values_digest");

  private static final List<String> WINDOWED_CHECK =
      List.of(
          "outputs", "window_revisions", "windows_finalized", "window_late_rows", "values_digest");

  /**
   * The live keys of {@code c}'s samples over the oracle's after the same reads of each partition
   * ({@link OracleLoop#liveKeysAt}), from a tenth of the events read until before the last: {the
   * median ratio, the largest, the median of the least any one-watermark stage must hold over the
   * oracle's, the samples compared}; null without samples there.
   */
  static double @org.checkerframework.checker.nullness.qual.Nullable [] liveVsOracle(Case c) {
    List<Double> ratios = new ArrayList<>();
    List<Double> bound = new ArrayList<>();
    int partitions = Math.min(c.workload.partitions, LiveMetrics.PARTITIONS_SAMPLED);
    for (long[] s : c.live) {
      if (s.length < 2 + partitions || s[0] < c.workload.events / 10 || s[0] >= c.workload.events) {
        continue;
      }
      long[] read = Arrays.copyOfRange(s, 2, 2 + partitions);
      long[] oracle = OracleLoop.liveKeysAt(c.workload, read);
      if (oracle[0] > 0) {
        ratios.add(s[1] / (double) oracle[0]);
        bound.add(oracle[1] / (double) oracle[0]);
      }
    }
    if (ratios.isEmpty()) {
      return null;
    }
    double max = ratios.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    java.util.Collections.sort(ratios);
    java.util.Collections.sort(bound);
    return new double[] {
      ratios.get(ratios.size() / 2), max, bound.get(bound.size() / 2), ratios.size()
    };
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = options(args);
    boolean quick = opt.containsKey("quick");
    int events = Integer.parseInt(opt.getOrDefault("events", quick ? "100000" : "1000000"));
    int directEvents =
        Math.min(
            events, Integer.parseInt(opt.getOrDefault("direct-events", quick ? "20000" : "50000")));
    int repeats = Integer.parseInt(opt.getOrDefault("repeats", "3"));
    int partitions = Integer.parseInt(opt.getOrDefault("partitions", "2"));
    long seed = Long.parseLong(opt.getOrDefault("seed", "20260830"));
    List<String> only = opt.containsKey("only") ? Arrays.asList(opt.get("only").split(",")) : null;
    Path out = Path.of(opt.getOrDefault("out", "benchmarks/target"));
    Path projectDir = Path.of(opt.getOrDefault("project", "benchmarks/project"));
    BeamPipelines.objectReuse = Boolean.parseBoolean(opt.getOrDefault("object-reuse", "false"));
    BeamPipelines.flinkConfDir = LiveMetrics.confDir(out.toAbsolutePath());

    Project project = Project.load(projectDir);
    DeclaredModel model = DeclaredModel.of(project, "customer_metrics");
    DeclaredModel hourly = DeclaredModel.of(project, "hourly_revenue");
    Workload full = Workload.of(events, partitions, seed);
    Workload capped = Workload.of(directEvents, partitions, seed);
    String p2 = "flink-p" + PARALLELISM;

    // full (and the JSON the source reads) generated before any timing starts
    full.json(0);
    List<Case> cases = new ArrayList<>();
    // `streamform`: what `run` builds for this declaration on each runner (issue 31) — log order on
    // the DirectRunner, on arrival on Flink (the model's source has no event_id) — with the options
    // `run` gives the runner (on Flink object reuse, ADR 0069); the baselines keep Beam's defaults
    cases.add(
        new Case(
            "streamform",
            "direct",
            capped,
            () ->
                BeamPipelines.run(
                    BeamPipelines.streamform(BeamPipelines.direct(), capped, model))));
    cases.add(
        new Case(
            "plain-beam",
            "direct",
            capped,
            () ->
                BeamPipelines.run(BeamPipelines.plainBeam(BeamPipelines.direct(), capped, model))));
    cases.add(
        new Case(
            "streamform",
            p2,
            full,
            () ->
                BeamPipelines.run(
                    BeamPipelines.streamform(BeamPipelines.asRun(PARALLELISM), full, model))));
    // the other path on Flink: the log-order hand-over, which the DirectRunner and models with
    // event_id use, applied by the same runner to the same records
    cases.add(
        new Case(
            "sf-log-order",
            p2,
            full,
            () ->
                BeamPipelines.run(
                    BeamPipelines.streamform(
                        BeamPipelines.asRun(PARALLELISM), full, model, false))));
    // the lever of the runner profiles, side by side: the same pipeline without Flink object reuse
    // (an encode/decode copy between chained operators), as the baselines run
    cases.add(
        new Case(
            "sf-no-reuse",
            p2,
            full,
            () ->
                BeamPipelines.run(
                    BeamPipelines.streamform(
                        BeamPipelines.flink(PARALLELISM, false), full, model))));
    // the same with the watermark moved on sooner: sources' watermark every 20 ms (200), bundles of
    // 100 elements (1,000); not in a full run unless named with --only
    cases.add(
        new Case(
            "sf-wm",
            p2,
            full,
            () ->
                BeamPipelines.run(
                    BeamPipelines.streamform(
                        BeamPipelines.asRun(PARALLELISM, 20L, 100L), full, model))));
    cases.add(
        new Case(
            "streamform",
            "flink-p1",
            full,
            () ->
                BeamPipelines.run(BeamPipelines.streamform(BeamPipelines.asRun(1), full, model))));
    cases.add(
        new Case(
            "plain-beam",
            p2,
            full,
            () ->
                BeamPipelines.run(
                    BeamPipelines.plainBeam(BeamPipelines.flink(PARALLELISM), full, model))));
    cases.add(new Case("native-flink", p2, full, () -> NativeFlink.run(full, PARALLELISM)));
    // issue 31's prototype of the next lever: streamform's contract as native Flink operators
    cases.add(
        new Case(
            "sf-native", p2, full, () -> NativeStage.run(full, model.recordSchema(), PARALLELISM)));
    cases.add(new Case("native-flink", "flink-p1", full, () -> NativeFlink.run(full, 1)));
    cases.add(
        new Case("oracle", "jvm", full, () -> OracleLoop.counters(OracleLoop.run(full, model))));
    cases.add(
        new Case(
            "sf-hourly",
            p2,
            full,
            () ->
                BeamPipelines.run(
                    BeamPipelines.streamformWindowed(
                        BeamPipelines.asRun(PARALLELISM), full, hourly))));
    cases.add(
        new Case(
            "beam-windows",
            p2,
            full,
            () ->
                BeamPipelines.run(
                    BeamPipelines.beamWindowing(BeamPipelines.flink(PARALLELISM), full, hourly))));
    cases.add(
        new Case("flink-windows", p2, full, () -> NativeFlink.runWindowed(full, PARALLELISM)));
    // The windowed oracle is not timed: it keeps every event of a window and is far slower than
    // the changelog oracle (~2-5k events/s here); it runs once, for the check below.
    if (only == null) {
      cases.removeIf(c -> c.pipeline.equals("sf-wm"));
    } else {
      cases.removeIf(
          c -> !only.contains(c.pipeline) && !only.contains(c.pipeline + "/" + c.runner));
    }

    System.out.printf(
        Locale.ROOT,
        "workload: %,d events (direct runner: %,d), %,d keys, %d partitions, seed %d; %d warm-up +"
            + " %d measured rounds; %s%n",
        events,
        directEvents,
        Workload.KEYS,
        partitions,
        seed,
        1,
        repeats,
        machine());
    for (int round = 0; round <= repeats; round++) {
      for (Case c : cases) {
        if (System.console() != null) {
          // progress on a terminal only (stays quiet when piped): what runs now, before its line
          System.err.printf(
              Locale.ROOT,
              "\r%s %s on %s...%20s\r",
              round == 0 ? "warm-up" : "round " + round + "/" + repeats,
              c.pipeline,
              c.runner,
              "");
          System.err.flush();
        }
        System.gc();
        resetPeaks();
        LiveMetrics.Sampler sampler = new LiveMetrics.Sampler();
        long start = System.nanoTime();
        long cpuStart = FixtureSpeed.cpuNanos();
        Map<String, Long> counters;
        try {
          counters = c.run.call();
        } finally {
          List<long[]> samples = sampler.stop();
          // a pipeline without a live-state counter (plain Beam's combine, Beam's windowing)
          // reports none: no line rather than a line at zero
          if (c.runner.startsWith("flink") && samples.stream().anyMatch(s -> s[1] != 0)) {
            c.live = samples;
          }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuPerEvent = (FixtureSpeed.cpuNanos() - cpuStart) / 1e3 / c.workload.events;
        double heap = peakHeapMb();
        c.counters = counters;
        c.rounds.add(counters);
        System.out.printf(
            Locale.ROOT,
            "  %s %-13s %-9s %,9d events %7.2f s %,10.0f ev/s cpu %6.1f µs/ev heap %5.0f MB live %s"
                + " %s%n",
            round == 0 ? "warm-up " : "round " + round + " ",
            c.pipeline,
            c.runner,
            c.workload.events,
            seconds,
            c.workload.events / seconds,
            cpuPerEvent,
            heap,
            c.lastLive(),
            counters);
        if (round > 0) {
          c.rates.add(c.workload.events / seconds);
          c.heaps.add(heap);
          c.cpuPerEvent.add(cpuPerEvent);
        }
      }
    }

    // every streamform answer against the oracle's, values included; the others' lateness beside it
    Map<Workload, FixtureOutcome> oracle = new LinkedHashMap<>();
    Map<String, Long> windowedExpected = null;
    long[] logicalFull = null;
    for (Case c : cases) {
      switch (c.pipeline) {
        case "sf-log-order":
        case "sf-wm":
        case "sf-native":
        case "sf-no-reuse":
        case "streamform":
          {
            FixtureOutcome o = oracle.computeIfAbsent(c.workload, w -> OracleLoop.run(w, model));
            c.expected = OracleLoop.counters(o);
            check(c, CHANGELOG_CHECK, "late, changelog values, inserts");
            long[] logical = OracleLoop.liveKeys(c.workload, o);
            c.state += "; oracle's live keys after the last event " + logical[0];
            c.liveVsOracle = liveVsOracle(c);
            if (c.liveVsOracle != null) {
              c.state +=
                  String.format(
                      Locale.ROOT,
                      "; live keys / oracle's at the same reads: median %.3f, max %.3f (%d"
                          + " samples; one watermark over all partitions could at best: median"
                          + " %.3f)",
                      c.liveVsOracle[0],
                      c.liveVsOracle[1],
                      (long) c.liveVsOracle[3],
                      c.liveVsOracle[2]);
            }
            break;
          }
        case "sf-hourly":
          if (windowedExpected == null) {
            long start = System.nanoTime();
            windowedExpected = OracleLoop.windowedCounters(OracleLoop.runWindowed(full, hourly));
            System.out.printf(
                Locale.ROOT,
                "windowed oracle over %,d events: %.1f s%n",
                full.events,
                (System.nanoTime() - start) / 1e9);
          }
          c.expected = windowedExpected;
          check(c, WINDOWED_CHECK, "records' values, finals, too-late rows");
          break;
        case "oracle":
          logicalFull =
              OracleLoop.liveKeys(
                  full, oracle.computeIfAbsent(full, w -> OracleLoop.run(w, model)));
          c.state =
              "logical: "
                  + logicalFull[0]
                  + " keys live with retention, "
                  + logicalFull[1]
                  + " without";
          break;
        case "plain-beam":
          c.state = "no retention: a combine accumulator per key, forever";
          break;
        case "native-flink":
          {
            FixtureOutcome o = oracle.computeIfAbsent(full, w -> OracleLoop.run(w, model));
            c.state =
                "its own watermark: late "
                    + c.counters.get("late_events_dropped")
                    + " vs oracle "
                    + o.late.size();
            break;
          }
        case "beam-windows":
          c.state = "runner watermark: " + c.counters.get("late_panes") + " late panes";
          break;
        case "flink-windows":
          c.state =
              "its own watermark: late "
                  + c.counters.get("late_events_dropped")
                  + ", late firings "
                  + c.counters.get("late_firings");
          break;
        default:
      }
    }

    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            Locale.ROOT,
            "| %-13s | %-8s | %9s | %10s | %-15s | %7s | %10s | %11s | %s |%n",
            "pipeline",
            "runner",
            "events",
            "events/s",
            "ratios",
            "heap MB",
            "live state",
            "state B/key",
            "notes"));
    table.append("|---|---|--:|--:|---|--:|--:|--:|---|\n");
    StringBuilder json = new StringBuilder("[\n");
    for (Case c : cases) {
      double m = c.median();
      String ratios = ratios(c, cases);
      Long bytes = c.counters.get("state_bytes_per_key");
      table.append(
          String.format(
              Locale.ROOT,
              "| %-13s | %-8s | %,9d | %,10.0f | %-15s | %7.0f | %10s | %11s | %s |%n",
              c.pipeline,
              c.runner,
              c.workload.events,
              m,
              ratios,
              c.peakHeap(),
              c.lastLive() == null ? "-" : String.format(Locale.ROOT, "%,d", c.lastLive()),
              bytes == null ? "-" : bytes.toString(),
              c.state));
      StringBuilder live = new StringBuilder("[");
      for (long[] s : c.live) {
        live.append(live.length() > 1 ? ", " : "")
            .append('[')
            .append(s[0])
            .append(", ")
            .append(s[1])
            .append(']');
      }
      json.append(
          String.format(
              Locale.ROOT,
              "  {\"pipeline\": \"%s\", \"runner\": \"%s\", \"events\": %d, \"events_per_s\": %.1f,"
                  + " \"cpu_us_per_event\": %.2f, \"runs_cpu_us_per_event\": %s,"
                  + " \"peak_heap_mb\": %.1f, \"runs_events_per_s\": %s, \"ratios\": \"%s\","
                  + " \"live_state_last\": %s, \"state_bytes_per_key\": %s, \"matches_oracle\": %s,"
                  + " \"live_vs_oracle\": %s,"
                  + " \"counters\": %s, \"expected\": %s, \"live_over_events\": %s},%n",
              c.pipeline,
              c.runner,
              c.workload.events,
              m,
              Case.median(c.cpuPerEvent),
              c.cpuPerEvent.toString(),
              c.peakHeap(),
              c.rates.toString(),
              ratios,
              c.lastLive() == null ? "null" : c.lastLive(),
              bytes == null ? "null" : bytes,
              c.expected == null ? "null" : String.valueOf(!c.differs),
              c.liveVsOracle == null
                  ? "null"
                  : String.format(
                      Locale.ROOT,
                      "{\"median\": %.3f, \"max\": %.3f, \"one_watermark_bound_median\": %.3f}",
                      c.liveVsOracle[0],
                      c.liveVsOracle[1],
                      c.liveVsOracle[2]),
              jsonMap(c.counters),
              c.expected == null ? "null" : jsonMap(c.expected),
              live.append(']')));
    }

    if (opt.containsKey("fixtures")) {
      Path fixtures = Path.of(opt.get("fixtures"));
      double[] warm = fixtureSuiteTwice(fixtures);
      System.out.printf(
          Locale.ROOT,
          "%nstreamform test %s in this JVM: first suite %.2f s, second suite %.2f s, %d fixtures:"
              + " %.2f s per fixture warm%n",
          fixtures,
          warm[0],
          warm[1],
          (int) warm[2],
          warm[1] / warm[2]);
      json.append(
          String.format(
              Locale.ROOT,
              "  {\"pipeline\": \"fixture-suite-warm\", \"runner\": \"direct\", \"events\": 0,"
                  + " \"events_per_s\": null, \"peak_heap_mb\": null, \"fixtures\": %d,"
                  + " \"first_suite_s\": %.3f, \"second_suite_s\": %.3f, \"per_fixture_warm_s\":"
                  + " %.3f},%n",
              (int) warm[2],
              warm[0],
              warm[1],
              warm[1] / warm[2]));
    }
    String results = json.substring(0, json.length() - 2) + "\n]\n";
    System.out.printf("%n%s, %s%n%n%s", LocalDate.now(), machine(), table);
    Files.createDirectories(out);
    Files.writeString(out.resolve("results.json"), results);
    Files.writeString(out.resolve("table.md"), table.toString());
    List<Charts.Bar> bars = new ArrayList<>();
    List<Charts.Line> lines = new ArrayList<>();
    for (Case c : cases) {
      bars.add(new Charts.Bar(c.label(), c.median()));
      if (!c.live.isEmpty()) {
        lines.add(
            new Charts.Line(
                c.label()
                    + (c.pipeline.contains("window") || c.pipeline.contains("hourly")
                        ? " (live windows)"
                        : " (live keys)"),
                c.live));
      }
    }
    Path chart = out.resolve("benchmarks.png");
    Charts.write(chart, bars, lines, LocalDate.now() + ", " + machine());
    System.out.println("\nwrote " + out.resolve("results.json") + " and " + chart);
    List<String> wrong = new ArrayList<>();
    cases.stream().filter(c -> c.differs).forEach(c -> wrong.add(c.label() + ": " + c.state));
    if (!wrong.isEmpty()) {
      System.err.println(
          "\nbenchmarks: an answer differs from the oracle's:\n  " + String.join("\n  ", wrong));
      System.exit(1);
    }
  }

  /**
   * Compares {@code keys} of every round's counters (the warm-up is round 0) with the oracle's;
   * marks the case if one differs, naming each round that does.
   */
  static void check(Case c, List<String> keys, String what) {
    List<String> diffs = new ArrayList<>();
    if (c.rounds.isEmpty()) {
      diffs.add("no round ran"); // nothing compared is not a match
    }
    for (int round = 0; round < c.rounds.size(); round++) {
      Map<String, Long> counters = c.rounds.get(round);
      List<String> differ = new ArrayList<>();
      for (String k : keys) {
        if (!java.util.Objects.equals(c.expected.get(k), counters.get(k))) {
          differ.add(k + " " + counters.get(k) + " (oracle " + c.expected.get(k) + ")");
        }
      }
      if (!differ.isEmpty()) {
        diffs.add((round == 0 ? "warm-up" : "round " + round) + ": " + String.join(", ", differ));
      }
    }
    c.differs = !diffs.isEmpty();
    c.state =
        c.differs
            ? "DIFFERS from oracle: " + String.join("; ", diffs)
            : "= oracle in all " + c.rounds.size() + " rounds (" + what + ")";
  }

  /** The ratios each target of issues 17 and 31 names, for the case's row. */
  private static String ratios(Case c, List<Case> cases) {
    double m = c.median();
    List<String> r = new ArrayList<>();
    if ((c.pipeline.equals("streamform")
            || c.pipeline.equals("sf-no-reuse")
            || c.pipeline.equals("sf-log-order")
            || c.pipeline.equals("sf-wm")
            || c.pipeline.equals("sf-native"))
        && !c.runner.equals("flink-p1")) {
      Double plain = medianOf(cases, "plain-beam", c.runner);
      if (plain != null) {
        r.add(String.format(Locale.ROOT, "%.2f plain", m / plain));
      }
      if (c.runner.startsWith("flink")) {
        Double nat = medianOf(cases, "native-flink", c.runner);
        if (nat != null) {
          r.add(String.format(Locale.ROOT, "%.2f native", m / nat));
        }
      }
    }
    if (c.runner.equals("flink-p" + PARALLELISM) && !c.pipeline.equals("plain-beam")) {
      Double p1 = medianOf(cases, c.pipeline, "flink-p1");
      if (p1 != null) {
        r.add(String.format(Locale.ROOT, "%.2f p1", m / p1));
      }
    }
    if (c.pipeline.equals("sf-hourly")) {
      Double beam = medianOf(cases, "beam-windows", c.runner);
      Double nat = medianOf(cases, "flink-windows", c.runner);
      if (beam != null) {
        r.add(String.format(Locale.ROOT, "%.2f beam", m / beam));
      }
      if (nat != null) {
        r.add(String.format(Locale.ROOT, "%.2f native", m / nat));
      }
    }
    return r.isEmpty() ? "-" : String.join(", ", r);
  }

  /**
   * Runs the fixture suite at {@code path} twice on the DirectRunner; {first s, second s,
   * fixtures}.
   */
  private static double[] fixtureSuiteTwice(Path path) throws Exception {
    double[] times = new double[3];
    for (int i = 0; i < 2; i++) {
      StringWriter text = new StringWriter();
      FixtureSuite suite =
          new FixtureSuite(
              FixtureRunner.on(FixtureSpeed.AS_STREAMFORM_TEST), new PrintWriter(text));
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
    return cases.stream()
        .filter(c -> c.pipeline.equals(pipeline) && c.runner.equals(runner))
        .map(Case::median)
        .findFirst()
        .orElse(null);
  }

  private static String jsonMap(Map<String, Long> m) {
    StringBuilder b = new StringBuilder("{");
    m.forEach(
        (k, v) ->
            b.append(b.length() > 1 ? ", " : "").append('"').append(k).append("\": ").append(v));
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
    return Runtime.getRuntime().availableProcessors()
        + " cores, max heap "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024)
        + " MB, load average "
        + String.format(
            Locale.ROOT,
            "%.1f",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
        + " at the end, Java "
        + System.getProperty("java.version");
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

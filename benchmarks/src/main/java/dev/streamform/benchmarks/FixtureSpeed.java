package dev.streamform.benchmarks;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fuzz.FixtureYaml;
import dev.streamform.teststreams.oracle.Oracle;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Fixture speed (issues 17 and 20), measured in one JVM on the DirectRunner through what {@code
 * streamform test} runs ({@link FixtureSuite}: project and YAML loading, the pipeline, the
 * comparison): a generated large fixture ({@link #writeLargeProject}) run {@code --runs} times —
 * the first run is cold in this JVM, the others warm — and the seed fixture suite run twice, the
 * second time warm, divided by its fixtures. A fixture that fails stops the benchmark: a fast wrong
 * answer is not a result. The cold process ({@code streamform test} as its own JVM) is measured by
 * {@code benchmarks/run}, not here.
 *
 * <p>Usage: {@code FixtureSpeed [--events N] [--keys K] [--runs R] [--seed S] [--fixtures DIR]
 * [--alternations A] [--out DIR] [--write-only]}; {@code --write-only} writes the large fixture's
 * project to {@code <out>/fixture-<N>} and stops (run it with {@code streamform test
 * <out>/fixture-<N>}).
 */
public final class FixtureSpeed {
  static final long START_MILLIS = 1_788_076_800_000L; // 2026-08-30T00:00:00Z

  /**
   * The runner {@code streamform test} uses: the DirectRunner with its immutability and
   * encodability checks off (as the CLI's {@code TestCommand} sets them without --runner-checks).
   */
  static final RunnerChoice AS_STREAMFORM_TEST = RunnerChoice.direct().asStreamformTest();

  private FixtureSpeed() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String name = args[i].replaceFirst("^--", "");
      boolean flag = i + 1 >= args.length || args[i + 1].startsWith("--");
      opt.put(name, flag ? "" : args[++i]);
    }
    int events = Integer.parseInt(opt.getOrDefault("events", "5000"));
    int keys = Integer.parseInt(opt.getOrDefault("keys", "300"));
    int runs = Integer.parseInt(opt.getOrDefault("runs", "5"));
    long seed = Long.parseLong(opt.getOrDefault("seed", "20261130"));
    Path out = Path.of(opt.getOrDefault("out", "benchmarks/target"));
    Path fixtures = Path.of(opt.getOrDefault("fixtures", "test-streams/fixtures/time"));
    Path project = out.resolve("fixture-" + events);
    writeLargeProject(Path.of("benchmarks/project"), project, events, keys, seed);
    System.out.printf(
        Locale.ROOT,
        "wrote %s (%,d events over %d keys, %,d bytes of fixture YAML)%n",
        project,
        events,
        keys,
        Files.size(project.resolve("fixtures/large.yml")));
    if (opt.containsKey("write-only")) {
      return;
    }
    StringBuilder json = new StringBuilder("[\n");
    List<Double> large = new ArrayList<>();
    List<Double> largeCpu = new ArrayList<>();
    for (int run = 1; run <= runs; run++) {
      double[] s = suite(project);
      large.add(s[0]);
      largeCpu.add(s[2]);
      System.out.printf(
          Locale.ROOT,
          "  %,d-event fixture, run %d in this JVM: %.2f s wall, %.2f s CPU%n",
          events,
          run,
          s[0],
          s[2]);
    }
    double warmLarge = median(large.subList(Math.min(2, large.size() - 1), large.size()));
    double warmLargeCpu =
        median(largeCpu.subList(Math.min(2, largeCpu.size() - 1), largeCpu.size()));
    double[] first = suite(fixtures);
    double[] second = suite(fixtures);
    // what one more fixture costs: the whole suite against a suite of one of its projects, warm,
    // alternating, nine times each (three, before 2026-12-05 evening, gave suites of 9 fixtures of
    // 0.43 to 0.88 s in one run, the JIT still compiling); (median whole - median one) / (fixtures
    // - fixtures of the one)
    Path one = fixtures.resolve(opt.getOrDefault("one", "late-event"));
    List<Double> wholes = new ArrayList<>();
    List<Double> ones = new ArrayList<>();
    double oneCount = 0;
    int alternations = Integer.parseInt(opt.getOrDefault("alternations", "9"));
    for (int i = 0; i < alternations; i++) {
      double[] o = suite(one);
      double[] w = suite(fixtures);
      ones.add(o[0]);
      wholes.add(w[0]);
      oneCount = o[1];
    }
    double perExtra = (median(wholes) - median(ones)) / (second[1] - oneCount);
    System.out.printf(
        Locale.ROOT,
        "%n%,d-event fixture: first run %.2f s, warm (median of runs 3-%d) %.2f s wall, %.2f s"
            + " CPU%nstreamform test %s: first suite %.2f s, second %.2f s (%.2f s CPU), %d"
            + " fixtures: %.3f s per fixture warm%none more fixture, warm: %.3f s (suite of %d"
            + " fixtures %s s, of %d %s s: median difference over the %d fixtures more)%n",
        events,
        large.get(0),
        runs,
        warmLarge,
        warmLargeCpu,
        fixtures,
        first[0],
        second[0],
        second[2],
        (int) second[1],
        second[0] / second[1],
        perExtra,
        (int) second[1],
        rounded(wholes),
        (int) oneCount,
        rounded(ones),
        (int) (second[1] - oneCount));
    System.out.printf(
        Locale.ROOT,
        "(%d processors, load average %.1f at the end)%n",
        Runtime.getRuntime().availableProcessors(),
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    json.append(
        String.format(
            Locale.ROOT,
            "  {\"pipeline\": \"fixture-large\", \"runner\": \"direct\", \"events\": %d, \"keys\":"
                + " %d, \"runs_s\": %s, \"runs_cpu_s\": %s, \"first_s\": %.3f, \"warm_s\": %.3f,"
                + " \"warm_cpu_s\": %.3f},%n",
            events,
            keys,
            large,
            largeCpu,
            large.get(0),
            warmLarge,
            warmLargeCpu));
    json.append(
        String.format(
            Locale.ROOT,
            "  {\"pipeline\": \"fixture-seed-suite\", \"runner\": \"direct\", \"fixtures\": %d,"
                + " \"first_suite_s\": %.3f, \"second_suite_s\": %.3f, \"second_suite_cpu_s\":"
                + " %.3f, \"per_fixture_warm_s\": %.3f, \"one_more_fixture_warm_s\": %.3f,"
                + " \"suite_s\": %s, \"one_project_s\": %s, \"one_project_fixtures\": %d}%n]%n",
            (int) second[1],
            first[0],
            second[0],
            second[2],
            second[0] / second[1],
            perExtra,
            rounded(wholes),
            rounded(ones),
            (int) oneCount));
    Files.createDirectories(out);
    Files.writeString(out.resolve("fixture-speed.json"), json);
    System.out.println("wrote " + out.resolve("fixture-speed.json"));
  }

  /** Runs the fixtures at {@code path} as {@code streamform test} does; {seconds, fixtures}. */
  static double[] suite(Path path) throws IOException {
    StringWriter text = new StringWriter();
    FixtureSuite suite =
        new FixtureSuite(FixtureRunner.on(AS_STREAMFORM_TEST), new PrintWriter(text));
    long cpu = cpuNanos();
    long start = System.nanoTime();
    boolean passed = suite.run(path);
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (cpuNanos() - cpu) / 1e9;
    if (!passed || suite.passed() == 0) {
      throw new IllegalStateException("fixtures at " + path + " did not pass:\n" + text);
    }
    return new double[] {seconds, suite.passed(), cpuSeconds};
  }

  /**
   * CPU time of this whole JVM (every thread, JIT and GC too): on a machine shared with other work,
   * wall clock grows with the load and CPU time much less, so both are reported.
   */
  static long cpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
        : 0;
  }

  /**
   * Writes a project at {@code target}: {@code template}'s {@code sources.yml}, {@code
   * streamform.yml} and every model's query (the fixture is the benchmark's customer_metrics, with
   * retention), and {@code fixtures/large.yml} of {@code events} orders over {@code keys} customers
   * — one a second, 70% in order, 29% up to 4 minutes behind (inside the 5m watermark), 1% 6 to 60
   * minutes behind (late) — with every changelog row and late event the {@link Oracle} gives for
   * them. A pure function of its arguments.
   */
  public static void writeLargeProject(Path template, Path target, int events, int keys, long seed)
      throws Exception {
    Files.createDirectories(target.resolve("models"));
    Files.createDirectories(target.resolve("fixtures"));
    // every model the template declares: streamform.yml names them all, and loading the project
    // needs each one's query (a model added to the benchmarks must not break this fixture)
    List<String> files = new java.util.ArrayList<>(List.of("sources.yml", "streamform.yml"));
    try (java.util.stream.Stream<Path> models = Files.list(template.resolve("models"))) {
      models
          .filter(m -> m.getFileName().toString().endsWith(".sql"))
          .sorted()
          .forEach(m -> files.add("models/" + m.getFileName()));
    }
    for (String file : files) {
      Files.copy(
          template.resolve(file),
          target.resolve(file),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    DeclaredModel model = DeclaredModel.of(Project.load(target), "customer_metrics");
    Fixture.Builder items = Fixture.builder("large", "customer_metrics");
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < events; i++) {
      double r = random.nextDouble();
      long delay =
          r < 0.70 ? 0 : r < 0.99 ? random.nextLong(240_000) : 360_000 + random.nextLong(3_240_000);
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("customer_id", (long) (1 + random.nextInt(keys)));
      values.put("amount", BigDecimal.valueOf(100 + random.nextInt(49_900), 2));
      values.put("ordered_at", Instant.ofEpochMilli(START_MILLIS + i * 1000L - delay));
      items.event(0, values);
    }
    Fixture fixture = items.build();
    FixtureOutcome expected = Oracle.of(model).run(fixture);
    String yaml =
        FixtureYaml.render(
            fixture,
            expected,
            List.of(
                "Generated by dev.streamform.benchmarks.FixtureSpeed (--events "
                    + events
                    + " --keys "
                    + keys
                    + " --seed "
                    + seed
                    + "): do not edit; expect: and late: are the oracle's answer."));
    Files.writeString(target.resolve("fixtures/large.yml"), yaml);
  }

  private static double median(List<Double> values) {
    double[] s = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static String rounded(List<Double> seconds) {
    List<String> r = new ArrayList<>();
    seconds.forEach(x -> r.add(String.format(Locale.ROOT, "%.3f", x)));
    return r.toString();
  }
}

package dev.streamform.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.pipelines.file.FileModelRun;
import dev.streamform.pipelines.kafka.ModelSinks;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.GateThresholds;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.schema.ColumnValues;
import dev.streamform.policies.sql.RowPredicate;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.sink.LedgerVerification;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fuzz.FuzzRun;
import dev.streamform.teststreams.fuzz.Fuzzer;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.oracle.WindowedOutcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code streamform gates <project> --model M}: the release gates of docs/semantics.md §10, each a
 * figure measured from the run's ledger, outputs and source (or generated traces, or the provider's
 * counts) against the threshold of the project's {@code gates:}. A gate that cannot be measured
 * says why and, unless {@code --strict}, fails nothing (docs/decisions/0032).
 */
@Command(
    name = "gates",
    header = "Measures the release gates of a windowed model's run; exits 1 if one fails.",
    mixinStandardHelpOptions = true,
    description = {
      "Measures the release gates (docs/semantics.md §10) and prints each with its figure and"
          + " threshold (gates: in streamform.yml, else the defaults):",
      "  oracle: generated out-of-order traces agree with the independent oracle (--traces N,"
          + " --seed S; the DirectRunner);",
      "  offsets: every line of the run's source files is accounted for exactly once: in a"
          + " window's latest revision in the ledger (its offsets), or in the late, duplicates or"
          + " quarantine file of --output; blank lines, punctuations and events the query's WHERE"
          + " filters out have no output by design;",
      "  recomputation: projections whose value differs from a recomputation from the append-only"
          + " ledger (as streamform ledger verify);",
      "  latency: P99 of a correction's publication latency (appended to the topic -> committed"
          + " in PostgreSQL);",
      "  disposition: share of the events the contract judges too late (replayed from the source"
          + " through the oracle) found in the late output (or the duplicates output);",
      "  effects: provider-side effects per effect key, as the provider counts them"
          + " (--provider-url).",
      "It reads: the ledger at --jdbc-url (generation --generation, else the canonical one), the"
          + " source files the project declares, the run's output files in --output (default:"
          + " <project>/target/<model>, where streamform run writes them) and the provider's"
          + " counts at --provider-url. A gate it cannot measure is printed NOT MEASURED with the"
          + " reason; only --strict makes that a failure."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every measured gate passed",
      "1:a gate failed (or, with --strict, could not be measured), or the project, database or"
          + " outputs cannot be read",
      "2:bad command line"
    })
final class GatesCommand implements Callable<Integer> {
  /** The gates, in the order they are printed; {@code --skip} takes these names. */
  static final List<String> GATES =
      List.of("oracle", "offsets", "recomputation", "latency", "disposition", "effects");

  @Mixin LedgerCommand.Target target;

  @Option(
      names = "--generation",
      paramLabel = "N",
      description = "the run's generation in the ledger (default: the canonical one)")
  Integer generation;

  @Option(
      names = "--output",
      paramLabel = "DIR",
      description =
          "the run's output files: <late_topic>.jsonl, <quarantine_topic>.jsonl,"
              + " <model>.duplicates.jsonl (default: <project>/target/<model>)")
  Path output;

  @Option(
      names = "--traces",
      paramLabel = "N",
      description = "generated traces for the oracle gate (default: gates.oracle_traces, 200)")
  Integer traces;

  @Option(
      names = "--seed",
      paramLabel = "S",
      description = "the seed of those traces (default: gates.oracle_seed, 1)")
  Long seed;

  @Option(
      names = "--provider-url",
      paramLabel = "URL",
      description =
          "the provider's counts per effect key, e.g. http://127.0.0.1:8099/effects (streamform"
              + " provider answers GET there); without it the effects gate is not measured")
  String providerUrl;

  @Option(
      names = "--skip",
      paramLabel = "GATE",
      split = ",",
      description =
          "gates not to measure (oracle, offsets, recomputation, latency, disposition,"
              + " effects)")
  List<String> skip = List.of();

  @Option(names = "--strict", description = "a gate that could not be measured fails too")
  boolean strict;

  @Spec CommandSpec spec;

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /** One gate's verdict: passed, failed or not measured, its figure, threshold and detail. */
  record Verdict(String gate, String state, String figure, String threshold, String detail) {
    static Verdict measured(
        String gate, boolean passes, String figure, String threshold, String detail) {
      return new Verdict(gate, passes ? "PASS" : "FAIL", figure, threshold, detail);
    }

    static Verdict notMeasured(String gate, String threshold, String why) {
      return new Verdict(gate, "NOT MEASURED", "-", threshold, why);
    }
  }

  @Override
  public Integer call() {
    for (String s : skip) {
      if (!GATES.contains(s.trim())) {
        throw new ParameterException(
            spec.commandLine(),
            "--skip: no gate named '" + s + "'; gates: " + String.join(", ", GATES));
      }
    }
    if (traces != null && traces < 1) {
      throw new ParameterException(spec.commandLine(), "--traces must be at least 1");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<ModelLedger> opened =
        ModelLedger.open(
            target.project,
            target.model,
            target.credentials.target(target.jdbcUrl, spec.commandLine()),
            false,
            "gates",
            spec.commandLine());
    if (opened.isEmpty()) {
      return 1;
    }
    try (ModelLedger l = opened.get()) {
      DeclaredModel model = l.model;
      GateThresholds t = ProjectArgument.load(target.project, "gates", err).get().gates();
      OptionalInt canonical = l.ledger.canonicalGeneration(l.name());
      int g =
          generation != null
              ? generation
              : canonical.isPresent() ? canonical.getAsInt() : model.model().generation();
      Path dir = output != null ? output : target.project.resolve("target").resolve(l.name());
      out.println(
          "gates of "
              + l.name()
              + ": ledger "
              + target.jdbcUrl
              + " generation "
              + g
              + (canonical.isPresent() && canonical.getAsInt() == g ? " (canonical)" : "")
              + "; run outputs "
              + dir
              + "; provider "
              + (providerUrl == null ? "none" : providerUrl));
      List<Verdict> verdicts = new ArrayList<>();
      for (String gate : GATES) {
        if (skip.contains(gate)) {
          verdicts.add(Verdict.notMeasured(gate, threshold(gate, t), "skipped (--skip)"));
          continue;
        }
        verdicts.add(measure(gate, l, model, g, dir, t));
      }
      int failed = 0;
      int unmeasured = 0;
      for (Verdict v : verdicts) {
        out.printf(
            Locale.ROOT,
            "  %-12s  %-13s  %-10s  threshold %-8s  %s%n",
            v.state(),
            v.gate(),
            v.figure(),
            v.threshold(),
            v.detail());
        failed += v.state().equals("FAIL") ? 1 : 0;
        unmeasured += v.state().equals("NOT MEASURED") ? 1 : 0;
      }
      int passed = verdicts.size() - failed - unmeasured;
      out.println(
          "gates: "
              + passed
              + " passed, "
              + failed
              + " failed, "
              + unmeasured
              + " not measured"
              + (unmeasured > 0 && strict ? " (--strict: not measured fails)" : ""));
      return failed > 0 || (strict && unmeasured > 0) ? 1 : 0;
    } catch (SQLException e) {
      err.println("streamform gates: " + ModelLedger.firstLine(e));
      return 1;
    } catch (IOException e) {
      err.println("streamform gates: cannot read " + ModelLedger.firstLine(e));
      return 1;
    }
  }

  private static String threshold(String gate, GateThresholds t) {
    switch (gate) {
      case "oracle":
        return ">= " + percent(t.oracleAgreementPercent());
      case "offsets":
        return "<= " + t.missingOffsets() + "/" + t.duplicatedOffsets();
      case "recomputation":
        return "<= " + t.recomputationMismatches();
      case "latency":
        return "< " + t.publicationLatencyP99().toSeconds() + "s";
      case "disposition":
        return ">= " + percent(t.lateDispositionPercent());
      default:
        return "<= " + t.effectsPerKey();
    }
  }

  private Verdict measure(
      String gate, ModelLedger l, DeclaredModel model, int g, Path dir, GateThresholds t)
      throws SQLException, IOException {
    String th = threshold(gate, t);
    switch (gate) {
      case "oracle":
        return oracle(model, t, th);
      case "offsets":
        return offsets(l, model, g, dir, t, th);
      case "recomputation":
        return recomputation(l, t, th);
      case "latency":
        return Verdict.notMeasured(
            gate,
            th,
            model.source().connector() == Connector.FILE
                ? "a file source has no append time: measured on a Kafka run only"
                : "reading append times from Kafka is not implemented yet (issue 33)");
      case "disposition":
        return disposition(model, dir, t, th);
      default:
        return effects(model, t, th);
    }
  }

  // ---- oracle: fuzz on the DirectRunner, captured, one line printed

  private Verdict oracle(DeclaredModel model, GateThresholds t, String th) throws IOException {
    int n = traces != null ? traces : t.oracleTraces();
    long s = seed != null ? seed : t.oracleSeed();
    Path fixtures = target.project.resolve("target").resolve("gates-fixtures");
    StringWriter log = new StringWriter();
    FuzzRun.Result r =
        new FuzzRun(model, Fuzzer.of(model, 50), new PrintWriter(log))
            .run(
                n,
                s,
                List.of(Fuzzer.Target.of(FixtureRunner.on(RunnerChoice.direct()), model)),
                fixtures);
    double share = 100.0 * r.agreeing / r.traces;
    String detail =
        r.agreeing
            + " of "
            + r.traces
            + " traces agree, seed "
            + s
            + (r.fixtures.isEmpty() ? "" : "; shrunk disagreement: " + r.fixtures.get(0));
    return Verdict.measured(
        "oracle", share >= t.oracleAgreementPercent(), percent(share), th, detail);
  }

  // ---- recomputation: ledger verify's mismatches

  private Verdict recomputation(ModelLedger l, GateThresholds t, String th) throws SQLException {
    LedgerVerification v =
        l.ledger.verify(
            l.name(),
            l.model
                .model()
                .window()
                .filter(WindowSpec::isCalendar)
                .map(w -> w.zoneOrUtc().getId())
                .orElse(null));
    // one altered projection can break several checks (values, digest): count projections
    Set<String> differing = new java.util.TreeSet<>();
    for (String d : v.defects()) {
      if (d.startsWith("mismatch: ") && d.contains("): ")) {
        differing.add(d.substring("mismatch: ".length(), d.indexOf("): ") + 1));
      }
    }
    return Verdict.measured(
        "recomputation",
        differing.size() <= t.recomputationMismatches(),
        String.valueOf(differing.size()),
        th,
        "projections that differ from a recomputation from their ledger rows ("
            + v.summary()
            + (v.defects().isEmpty() ? ")" : "; first: " + v.defects().get(0) + ")"));
  }

  // ---- effects: the provider's own counts

  private Verdict effects(DeclaredModel model, GateThresholds t, String th) throws IOException {
    if (model.model().effects().isEmpty()) {
      return Verdict.measured("effects", true, "0", th, "the model declares no effects");
    }
    if (providerUrl == null) {
      return Verdict.notMeasured(
          "effects", th, "no --provider-url: the provider's counts per effect key are unknown");
    }
    JsonNode counts;
    try {
      HttpResponse<String> answer =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(5))
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(providerUrl))
                      .timeout(Duration.ofSeconds(10))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() != 200) {
        throw new IOException(providerUrl + ": the provider answered " + answer.statusCode());
      }
      counts = JSON.readTree(answer.body()).get("applied");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(providerUrl + ": interrupted");
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--provider-url: " + e.getMessage());
    }
    if (counts == null || !counts.isObject()) {
      throw new IOException(
          providerUrl + ": not the provider's counts (a JSON object with \"applied\")");
    }
    long most = 0;
    int over = 0;
    for (Iterator<Map.Entry<String, JsonNode>> i = counts.fields(); i.hasNext(); ) {
      long n = i.next().getValue().asLong();
      most = Math.max(most, n);
      over += n > t.effectsPerKey() ? 1 : 0;
    }
    return Verdict.measured(
        "effects",
        over == 0,
        String.valueOf(most),
        th,
        "most provider-side effects of one key; "
            + counts.size()
            + " keys applied, "
            + over
            + " over the threshold");
  }

  // ---- the run's source, replayed: what each line is

  /** One line of a source file, as the run read it. */
  private record Line(int partition, long offset, Kind kind, Map<String, Object> values) {}

  private enum Kind {
    BLANK,
    PUNCTUATION,
    EVENT,
    UNREADABLE
  }

  private static List<Path> sourceFiles(DeclaredModel model, Path project) {
    return FileModelRun.of(model, project).files();
  }

  /** Every line of the source's files, file {@code i} being partition {@code i}. */
  private static List<Line> lines(DeclaredModel model, Path project) throws IOException {
    SourceDeclaration source = model.source();
    List<Line> lines = new ArrayList<>();
    List<Path> files = sourceFiles(model, project);
    for (int p = 0; p < files.size(); p++) {
      List<String> text = Files.readAllLines(files.get(p), StandardCharsets.UTF_8);
      for (int o = 0; o < text.size(); o++) {
        lines.add(line(p, o, text.get(o), source));
      }
    }
    return lines;
  }

  private static Line line(int p, long o, String text, SourceDeclaration source) {
    if (text.isBlank()) {
      return new Line(p, o, Kind.BLANK, Map.of());
    }
    try {
      JsonNode node = JSON.readTree(text);
      if (node == null || !node.isObject()) {
        return new Line(p, o, Kind.UNREADABLE, Map.of());
      }
      if (node.size() == 1 && node.has("__watermark")) {
        return new Line(
            p,
            o,
            Kind.PUNCTUATION,
            Map.of("__watermark", Timestamps.parse(node.get("__watermark").asText())));
      }
      Map<String, Object> values = new LinkedHashMap<>();
      for (Map.Entry<String, ColumnType> c : source.schema().entrySet()) {
        JsonNode v = node.get(c.getKey());
        if (v == null || v.isNull()) {
          continue;
        }
        if (v.isContainerNode()) {
          return new Line(p, o, Kind.UNREADABLE, Map.of());
        }
        Object raw =
            v.isBigDecimal()
                ? v.decimalValue()
                : v.isNumber()
                    ? v.numberValue()
                    : v.isBoolean() ? (Object) v.booleanValue() : v.asText();
        values.put(c.getKey(), ColumnValues.convert(c.getValue(), raw));
      }
      return new Line(p, o, Kind.EVENT, values);
    } catch (IOException | IllegalArgumentException e) {
      return new Line(p, o, Kind.UNREADABLE, Map.of());
    }
  }

  /** The run's rows of one output file: (partition, offset) and the row. */
  private static List<JsonNode> rows(Path file) throws IOException {
    List<JsonNode> rows = new ArrayList<>();
    if (!Files.exists(file)) {
      return rows;
    }
    for (String text : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!text.isBlank()) {
        rows.add(JSON.readTree(text));
      }
    }
    return rows;
  }

  private static String at(JsonNode row) {
    return row.path("partition").asInt() + "-" + row.path("offset").asLong();
  }

  private static Path lateFile(DeclaredModel model, Path dir) {
    return dir.resolve(ModelSinks.of(model).lateTopic() + ".jsonl");
  }

  // ---- offsets: each source offset accounted for exactly once

  private Verdict offsets(
      ModelLedger l, DeclaredModel model, int g, Path dir, GateThresholds t, String th)
      throws SQLException, IOException {
    if (model.source().connector() != Connector.FILE) {
      return Verdict.notMeasured(
          "offsets", th, "reading a Kafka source's offsets is not implemented yet (issue 33)");
    }
    if (!Files.isDirectory(dir)) {
      return Verdict.notMeasured(
          "offsets", th, "no run outputs in " + dir + " (streamform run --output writes them)");
    }
    ModelSinks sinks = ModelSinks.of(model);
    Map<String, Integer> lateRows = new HashMap<>();
    for (JsonNode r : rows(lateFile(model, dir))) {
      lateRows.merge(at(r), 1, Integer::sum);
    }
    Set<String> duplicates = new HashSet<>();
    List<String> twice = new ArrayList<>();
    for (JsonNode r :
        rows(dir.resolve(sinks.duplicatesTopic().orElse(l.name() + ".duplicates") + ".jsonl"))) {
      if (!duplicates.add(at(r))) {
        twice.add(at(r));
      }
    }
    Set<String> quarantined = new HashSet<>();
    for (JsonNode r : rows(dir.resolve(sinks.quarantineTopic() + ".jsonl"))) {
      if (!quarantined.add(at(r)) || duplicates.contains(at(r)) || lateRows.containsKey(at(r))) {
        twice.add(at(r));
      }
    }
    for (String d : duplicates) {
      if (lateRows.containsKey(d)) {
        twice.add(d);
      }
    }
    // per partition, each window's latest revision: {min, max, count} of the events it includes
    Map<Integer, List<long[]>> ranges = new TreeMap<>();
    try (Connection c = l.pool().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT DISTINCT ON (r.projection_id) r.offsets::text FROM"
                    + " streamform.correction_ledger r JOIN streamform.projection p USING"
                    + " (projection_id) WHERE p.model = ? AND p.generation = ?"
                    + " ORDER BY r.projection_id, r.revision DESC")) {
      s.setString(1, l.name());
      s.setInt(2, g);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          JsonNode offsets = JSON.readTree(rs.getString(1));
          for (Iterator<Map.Entry<String, JsonNode>> i = offsets.fields(); i.hasNext(); ) {
            Map.Entry<String, JsonNode> e = i.next();
            JsonNode o = e.getValue();
            ranges
                .computeIfAbsent(Integer.parseInt(e.getKey()), k -> new ArrayList<>())
                .add(
                    new long[] {
                      o.path("min").asLong(), o.path("max").asLong(), o.path("count").asLong()
                    });
          }
        }
      }
    }
    Optional<RowPredicate> where = model.query().where();
    String eventTime = model.source().eventTime().orElse("");
    long k = windowsPerEvent(model.model().window().get());
    Map<Integer, long[]> expected = new TreeMap<>(); // partition -> {slots, uncovered}
    long silent = 0;
    long read = 0;
    for (Line line : lines(model, target.project)) {
      read++;
      String id = line.partition() + "-" + line.offset();
      boolean filtered =
          line.kind() == Kind.EVENT
              && line.values().get(eventTime) != null
              && where.isPresent()
              && !where.get().test(line.values()::get);
      if (line.kind() == Kind.BLANK || line.kind() == Kind.PUNCTUATION || filtered) {
        silent++;
        continue;
      }
      long[] e = expected.computeIfAbsent(line.partition(), p -> new long[2]);
      if (duplicates.contains(id) || quarantined.contains(id)) {
        continue;
      }
      e[0] += k;
      if (!lateRows.containsKey(id) && !inside(ranges.get(line.partition()), line.offset())) {
        e[1]++;
      }
    }
    long missing = 0;
    long duplicated = twice.size();
    for (Map.Entry<Integer, long[]> e : expected.entrySet()) {
      long accounted =
          ranges.getOrDefault(e.getKey(), List.of()).stream().mapToLong(r -> r[2]).sum()
              + lateRows.entrySet().stream()
                  .filter(x -> x.getKey().startsWith(e.getKey() + "-"))
                  .mapToLong(Map.Entry::getValue)
                  .sum();
      long deficit = e.getValue()[0] - accounted;
      missing += Math.max(e.getValue()[1], deficit > 0 ? (deficit + k - 1) / k : 0);
      duplicated += deficit < 0 ? (-deficit + k - 1) / k : 0;
    }
    return Verdict.measured(
        "offsets",
        missing <= t.missingOffsets() && duplicated <= t.duplicatedOffsets(),
        missing + "/" + duplicated,
        th,
        "missing/duplicated of "
            + read
            + " source offsets ("
            + silent
            + " without output by design: blank, punctuation, filtered by WHERE)");
  }

  private static boolean inside(List<long[]> ranges, long offset) {
    if (ranges != null) {
      for (long[] r : ranges) {
        if (r[0] <= offset && offset <= r[1]) {
          return true;
        }
      }
    }
    return false;
  }

  /** How many windows contain each event: size / every for hopping windows, else 1. */
  private static long windowsPerEvent(WindowSpec w) {
    return w.isHopping() ? w.size().toMillis() / w.every().toMillis() : 1;
  }

  // ---- disposition: the oracle's too-late events, each in the late (or duplicates) output

  private Verdict disposition(DeclaredModel model, Path dir, GateThresholds t, String th)
      throws IOException {
    if (model.source().connector() != Connector.FILE) {
      return Verdict.notMeasured(
          "disposition", th, "replaying a Kafka source is not implemented yet (issue 33)");
    }
    if (!Files.isDirectory(dir)) {
      return Verdict.notMeasured(
          "disposition", th, "no run outputs in " + dir + " (streamform run --output writes them)");
    }
    // the source replayed through the oracle, each line one item so offsets stay line - 1
    Fixture.Builder b = Fixture.builder("gates", model.model().name());
    for (Line line : lines(model, target.project)) {
      if (line.kind() == Kind.PUNCTUATION) {
        b.watermark(Optional.of(line.partition()), (Instant) line.values().get("__watermark"));
      } else {
        // a blank or unreadable line: an event without time, which the oracle quarantines
        b.event(line.partition(), line.values());
      }
    }
    WindowedOutcome oracle = WindowedOracle.of(model).run(b.build());
    Set<String> found = new HashSet<>();
    for (JsonNode r : rows(lateFile(model, dir))) {
      found.add(at(r) + "@" + Timestamps.parse(r.path("window_start").asText()));
    }
    ModelSinks sinks = ModelSinks.of(model);
    Set<String> duplicates = new HashSet<>();
    for (JsonNode r :
        rows(
            dir.resolve(
                sinks.duplicatesTopic().orElse(model.model().name() + ".duplicates") + ".jsonl"))) {
      duplicates.add(at(r));
    }
    int expected = oracle.late().size();
    int kept = 0;
    List<String> without = new ArrayList<>();
    for (WindowedOutcome.Late late : oracle.late()) {
      if (found.contains(late.eventId() + "@" + late.windowStart())
          || duplicates.contains(late.eventId())) {
        kept++;
      } else {
        without.add(late.eventId().replace("-", " offset ") + " window " + late.windowStart());
      }
    }
    double share = expected == 0 ? 100 : 100.0 * kept / expected;
    return Verdict.measured(
        "disposition",
        share >= t.lateDispositionPercent(),
        percent(share),
        th,
        kept
            + " of "
            + expected
            + " too-late events (per refusing window) in "
            + lateFile(model, dir).getFileName()
            + (without.isEmpty() ? "" : "; without one: partition " + without.get(0)));
  }

  private static String percent(double p) {
    return String.format(Locale.ROOT, "%.1f%%", p);
  }
}

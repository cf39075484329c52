package dev.streamform.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.core.text.Counts;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.pipelines.file.BoundedLines;
import dev.streamform.pipelines.file.FileModelRun;
import dev.streamform.pipelines.file.OutputFolder;
import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.pipelines.kafka.KafkaRefusedException;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.GateThresholds;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.plan.PlanDiff;
import dev.streamform.policies.plan.PlanManifest;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.NotUtf8;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.sql.RowPredicate;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.sink.CanaryShare;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.LedgerVerification;
import dev.streamform.sink.effects.EffectsLedger;
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
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
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
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
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
      "  offsets: every line of the run's source files (every record of its source topic, up to"
          + " its end offsets now) is accounted for exactly once: in a window's latest revision in"
          + " the ledger (its offsets), or in the late, duplicates or quarantine output (file of"
          + " --output, or topic; a topic's repeats of one position count once); blank lines,"
          + " punctuations and events the query's WHERE filters out have no output by design"
          + " (each line is decoded as the run decodes it: one the run quarantines, e.g. without"
          + " a value for its key, is the quarantine's even where the WHERE would filter it);",
      "  recomputation: projections of the gated generation whose value differs from a"
          + " recomputation from the append-only ledger (as streamform ledger verify, which"
          + " checks every generation);",
      "  latency: P99 of a correction's publication latency on a Kafka run: each event the oracle"
          + " judges a correction within allowed lateness, from its record's timestamp on the topic"
          + " to the recorded_at of the first ledger revision of its window that includes it;",
      "  disposition: share of the events the contract judges too late (replayed from the source"
          + " through the oracle) found in the late output (or the duplicates output);",
      "  effects: deliveries per effect key as the provider counts them (--provider-url): every"
          + " request that reached the effect, applied or answered with its earlier receipt, so a"
          + " double send is seen even when the provider deduplicates it; only the model's own"
          + " effect keys (the effect ledger's) count, other models' deliveries to the same"
          + " provider are said and set aside; it fails when the ledger holds none of the"
          + " provider's delivered keys (is --jdbc-url the run's database?).",
      "It reads: the ledger at --jdbc-url (generation --generation, else the canonical one;"
          + " refused when that generation has no projection of the model, or ran with another"
          + " time policy than the project declares: the gates replay the declared one), the"
          + " source files the project declares and the run's output files in --output (default:"
          + " <project>/target/<model>, where streamform run writes them) or, for a Kafka source,"
          + " the source topic and the late, duplicates and quarantine topics at"
          + " --bootstrap-servers, and the provider's counts at --provider-url. A gate it cannot"
          + " measure is printed NOT MEASURED with the reason; only --strict makes that a"
          + " failure. A gate left out with --skip is printed NOT MEASURED too (skipped), and"
          + " --strict does not fail it."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every measured gate passed",
      "1:a gate failed (or, with --strict, could not be measured), the generation has no"
          + " projection of the model or ran with another time policy, or the project, database"
          + " or outputs cannot be read",
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
              + " <model>.duplicates.jsonl of a file run (a source with event_id only; default:"
              + " <project>/target/<model>)")
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
          "the provider's counts per effect key (a JSON object with deliveries_per_key), e.g."
              + " http://127.0.0.1:8099/effects (streamform provider answers GET there); without"
              + " it the effects gate is not measured")
  String providerUrl;

  @Option(
      names = "--skip",
      paramLabel = "GATE",
      split = ",",
      description =
          "gates not to measure (oracle, offsets, recomputation, latency, disposition,"
              + " effects)")
  List<String> skip = List.of();

  @Option(
      names = "--strict",
      description = "a gate that could not be measured fails too (not one left out with --skip)")
  boolean strict;

  /** A Kafka source's topic and side topics (offsets, latency, disposition) are read here. */
  @Mixin KafkaOptions.OnSource kafka;

  /**
   * The engine the oracle gate compares with the oracle: the declared model on the DirectRunner. A
   * seam for tests only (GatesCommandTest plants a defective engine here); nothing sets it else.
   */
  Function<DeclaredModel, Fuzzer.Target> engine =
      m -> Fuzzer.Target.of(FixtureRunner.on(RunnerChoice.direct()), m);

  @Spec CommandSpec spec;

  private RunInputs run;

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * For the canary line: where to gate generation {@code g} when it ran with another time policy
   * than {@code loaded} declares ({@code " from a project that declares the time policy it ran with
   * (...)"}), else nothing.
   */
  private static String fromItsProject(ModelLedger l, Project loaded, int g) throws SQLException {
    return otherPolicy(l, loaded, g, null, null)
        .map(p -> " from a project that declares the time policy it ran with (" + p + ")")
        .orElse("");
  }

  /**
   * How the time policy the ledger recorded for generation {@code g} (docs/decisions/0141) differs
   * from the one {@code loaded} declares, in what needs a new generation ({@link
   * PlanDiff#policyTopologyChanges}): each field with the recorded value followed by {@code there}
   * and the declared one followed by {@code here} (with {@code there} null: the recorded value
   * alone). Empty when they agree, or when nothing was recorded (a run without event time, or a
   * ledger older than the record).
   */
  private static Optional<String> otherPolicy(
      ModelLedger l, Project loaded, int g, String there, String here) throws SQLException {
    Optional<Ledger.RecordedPolicy> recorded = l.ledger.recordedPolicy(l.name(), g);
    if (recorded.isEmpty()) {
      return Optional.empty();
    }
    JsonNode declared =
        PlanManifest.of(loaded, l.name()).toTree().path("time_policy").path("policy");
    JsonNode ran;
    try {
      ran = JSON.readTree(recorded.get().policy());
    } catch (JsonProcessingException e) {
      return Optional.of("the recorded policy is not JSON: " + e.getOriginalMessage());
    }
    List<String> differ = new ArrayList<>();
    for (PlanDiff.TopologyChange c : PlanDiff.policyTopologyChanges(ran, declared)) {
      if (c.before().isEmpty() || c.source().isPresent()) {
        differ.add(c.reason());
      } else if (there == null) {
        differ.add(c.field() + ": " + c.before().get());
      } else {
        String now = c.reason().substring(c.reason().lastIndexOf(" -> ") + 4);
        differ.add(c.field() + ": " + c.before().get() + " " + there + ", " + now + " " + here);
      }
    }
    return differ.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", differ));
  }

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
    if (generation != null && generation < 1) {
      throw new ParameterException(
          spec.commandLine(), "--generation: a whole number from 1, got " + generation);
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<ModelLedger> opened = target.open(false, "gates", spec.commandLine());
    if (opened.isEmpty()) {
      return 1;
    }
    try (ModelLedger l = opened.get()) {
      DeclaredModel model = l.model;
      Project loaded = ProjectArgument.load(target.project, "gates", err).get();
      GateThresholds t = loaded.gates();
      OptionalInt canonical = l.ledger.canonicalGeneration(l.name());
      int g =
          generation != null
              ? generation
              : canonical.isPresent() ? canonical.getAsInt() : model.model().generation();
      // a generation with no projection has nothing to measure: refused, as compare-generations
      // refuses it, rather than measured as if it were a run
      Optional<String> refused = l.noProjection(g);
      if (refused.isPresent()) {
        err.println(
            "streamform gates: "
                + refused.get()
                + (generation != null
                    ? ""
                    : canonical.isPresent()
                        ? " (the canonical generation; give --generation N)"
                        : " (the generation "
                            + target.project
                            + " declares; no canonical one yet; give --generation N)"));
        return 1;
      }
      // the gates replay the source under the declared policy: a generation that ran with another
      // one would be measured against the wrong answers (docs/decisions/0187)
      Optional<String> ranWith = otherPolicy(l, loaded, g, "there", "here");
      if (ranWith.isPresent()) {
        err.println(
            "streamform gates: generation "
                + g
                + " of "
                + l.name()
                + " ran with another time policy than "
                + target.project.resolve("streamform.yml")
                + " declares ("
                + ranWith.get()
                + "): the gates replay the source under the declared policy, so their figures"
                + " would not be this generation's — gate it from the project that declares the"
                + " policy it ran with (streamform inspect-plan there shows it), or declare it"
                + " here again");
        return 1;
      }
      Path dir = output != null ? output : target.project.resolve("target").resolve(l.name());
      run = RunInputs.of(this, model, dir, err);
      if (run == null) {
        return 1;
      }
      out.println(
          "gates of "
              + l.name()
              + ": ledger "
              + target.jdbcUrl
              + " generation "
              + g
              + (canonical.isPresent() && canonical.getAsInt() == g ? " (canonical)" : "")
              + "; run outputs "
              + run.describe()
              + "; provider "
              + (providerUrl == null ? "none" : providerUrl));
      Optional<CanaryShare> canary = l.ledger.canary(l.name());
      if (canary.isPresent()) {
        Ledger.ShareKeys keys = l.ledger.shareKeys(l.name(), canary.get());
        out.println(
            "canary: "
                + canary.get().describe()
                + " ("
                + keys.inShare()
                + " of "
                + Counts.of(keys.keys(), "key")
                + "); "
                + (canary.get().generation() == g
                    ? "these gates measure the canary's generation; gate the others with"
                        + " --generation "
                        + canonical.getAsInt()
                        + fromItsProject(l, loaded, canonical.getAsInt())
                    : "these gates measure generation "
                        + g
                        + " only: gate the canary with --generation "
                        + canary.get().generation()
                        + fromItsProject(l, loaded, canary.get().generation())));
      }
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
      int notMeasurable = 0; // of unmeasured, those not left out with --skip: --strict fails them
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
        notMeasurable += v.state().equals("NOT MEASURED") && !skip.contains(v.gate()) ? 1 : 0;
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
              + (notMeasurable > 0 && strict ? " (--strict: not measured fails)" : ""));
      return failed > 0 || (strict && notMeasurable > 0) ? 1 : 0;
    } catch (SQLException e) {
      err.println("streamform gates: " + ModelLedger.firstLine(e));
      return 1;
    } catch (DamagedOutputException e) {
      err.println("streamform gates: " + e.getMessage());
      return 1;
    } catch (IOException e) {
      err.println("streamform gates: cannot read " + ModelLedger.firstLine(e));
      return 1;
    } finally {
      if (run != null) {
        run.close();
      }
    }
  }

  private static String threshold(String gate, GateThresholds t) {
    switch (gate) {
      case "oracle":
        return ">= " + exactPercent(t.oracleAgreementPercent());
      case "offsets":
        return "<= " + t.missingOffsets() + "/" + t.duplicatedOffsets();
      case "recomputation":
        return "<= " + t.recomputationMismatches();
      case "latency":
        return "< " + exactDuration(t.publicationLatencyP99().toMillis());
      case "disposition":
        return ">= " + exactPercent(t.lateDispositionPercent());
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
        return offsets(l, model, g, t, th);
      case "recomputation":
        return recomputation(l, g, t, th);
      case "latency":
        return latency(l, model, g, t, th);
      case "disposition":
        return disposition(model, t, th);
      default:
        return effects(l, model, t, th);
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
            .run(n, s, List.of(engine.apply(model)), fixtures);
    double share = 100.0 * r.agreeing / r.traces;
    String detail =
        r.agreeing
            + " of "
            + r.traces
            + " traces agree, seed "
            + s
            + (r.fixtures.isEmpty() ? "" : "; shrunk disagreement: " + r.fixtures.get(0));
    return Verdict.measured(
        "oracle",
        share >= t.oracleAgreementPercent(),
        against(share, t.oracleAgreementPercent()) + "%",
        th,
        detail);
  }

  // ---- recomputation: ledger verify's mismatches

  private Verdict recomputation(ModelLedger l, int g, GateThresholds t, String th)
      throws SQLException {
    // the gated generation's projections, as the first line names it; `ledger verify` covers
    // every generation
    LedgerVerification v =
        l.ledger.verify(
            l.name(),
            l.model
                .model()
                .window()
                .filter(WindowSpec::isCalendar)
                .map(w -> w.zoneOrUtc().getId())
                .orElse(null),
            g);
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
        "projections of generation "
            + g
            + " that differ from a recomputation from their ledger rows ("
            + v.summary()
            + (v.defects().isEmpty() ? ")" : "; first: " + v.defects().get(0) + ")"));
  }

  // ---- effects: the provider's own counts of deliveries per key

  private Verdict effects(ModelLedger l, DeclaredModel model, GateThresholds t, String th)
      throws IOException, SQLException {
    if (model.model().effects().isEmpty()) {
      return Verdict.measured("effects", true, "0", th, "the model declares no effects");
    }
    if (providerUrl == null) {
      return Verdict.notMeasured(
          "effects", th, "no --provider-url: the provider's counts per effect key are unknown");
    }
    // a provider that cannot be read leaves this gate unmeasured, the others stand (ADR 0032)
    JsonNode answered;
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
        return Verdict.notMeasured(
            "effects", th, providerUrl + ": the provider answered " + answer.statusCode());
      }
      if (answer.body().isBlank()) {
        return Verdict.notMeasured("effects", th, providerUrl + ": the answer is empty");
      }
      try {
        answered = JSON.readTree(answer.body());
      } catch (JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        return Verdict.notMeasured(
            "effects",
            th,
            providerUrl
                + ": the answer is not JSON"
                + (at == null
                    ? ""
                    : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
                + "; it begins: "
                + beginning(answer.body()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Verdict.notMeasured("effects", th, providerUrl + ": interrupted");
    } catch (IOException e) {
      return Verdict.notMeasured("effects", th, unreachable(providerUrl, e));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--provider-url: " + e.getMessage());
    }
    // deliveries, not applications: a second delivery that the provider deduplicated is a
    // double send all the same, which a provider without deduplication would apply twice
    // (docs/decisions/0047)
    JsonNode deliveries = answered.get(DELIVERIES);
    JsonNode applied = answered.path("applied");
    if (deliveries == null || !deliveries.isObject()) {
      return Verdict.notMeasured(
          "effects",
          th,
          providerUrl + ": not the provider's counts (a JSON object with \"" + DELIVERIES + "\")");
    }
    Map<String, Long> counted = new java.util.LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> i = deliveries.fields(); i.hasNext(); ) {
      Map.Entry<String, JsonNode> e = i.next();
      OptionalLong count = count(e.getValue());
      if (count.isEmpty()) {
        // a count the gate cannot read is not 0: the gate is not measured, never passed
        return Verdict.notMeasured(
            "effects",
            th,
            providerUrl
                + ": "
                + DELIVERIES
                + " of key "
                + e.getKey()
                + " is "
                + e.getValue()
                + ", not a count (a whole number from 0)");
      }
      counted.put(e.getKey(), count.getAsLong());
    }
    // the provider may serve several models: this model's gate counts the deliveries of its own
    // effect keys, as the effect ledger names them, and says how many others it set aside
    EffectsLedger effects = new EffectsLedger(l.pool());
    Map<String, String> owners = effects.owners(counted.keySet());
    int ownKeys = effects.keyCount(l.name());
    // deliveries of which no model of this ledger knows a single key: the gate judged nothing, and
    // the likely cause is a ledger other than the run's (ADR 0032, amendment of 2026-12-05)
    long deliveredKeys = counted.values().stream().filter(n -> n > 0).count();
    if (deliveredKeys > 0
        && counted.entrySet().stream()
            .noneMatch(e -> e.getValue() > 0 && owners.containsKey(e.getKey()))) {
      return new Verdict(
          "effects",
          "FAIL",
          "-",
          th,
          "the ledger at "
              + JdbcTarget.masked(target.jdbcUrl)
              + " holds none of the provider's "
              + Counts.grouped(deliveredKeys, "delivered key")
              + ": is --jdbc-url the database the run wrote to?");
    }
    long most = 0;
    int delivered = 0;
    int over = 0;
    String first = "";
    Map<String, Integer> others = new java.util.TreeMap<>();
    int unknown = 0;
    for (Map.Entry<String, Long> e : counted.entrySet()) {
      String owner = owners.get(e.getKey());
      if (owner == null) {
        unknown++;
        continue;
      }
      if (!owner.equals(l.name())) {
        others.merge(owner, 1, Integer::sum);
        continue;
      }
      long n = e.getValue();
      delivered += n > 0 ? 1 : 0;
      most = Math.max(most, n);
      if (n > t.effectsPerKey()) {
        if (over == 0) {
          first =
              "; first: "
                  + e.getKey()
                  + " delivered "
                  + n
                  + " times, applied "
                  + applied.path(e.getKey()).asLong();
        }
        over++;
      }
    }
    List<String> notCounted = new ArrayList<>();
    others.forEach((m, n) -> notCounted.add(Counts.of(n, "key") + " of " + m));
    if (unknown > 0) {
      notCounted.add(Counts.of(unknown, "key") + " in no model's effect ledger");
    }
    return Verdict.measured(
        "effects",
        over == 0,
        String.valueOf(most),
        th,
        "most deliveries of one of this model's effect keys the provider received (applied, or"
            + " answered with its earlier receipt); "
            + delivered
            + " of its "
            + Counts.of(ownKeys, "key")
            + " delivered, "
            + over
            + " over the threshold"
            + first
            + (notCounted.isEmpty()
                ? ""
                : "; not counted, not this model's: " + String.join(", ", notCounted)));
  }

  /** A delivery count: a JSON number that is a whole number from 0 (2.0 is 2); else empty. */
  static OptionalLong count(JsonNode v) {
    if (!v.isNumber()) {
      return OptionalLong.empty();
    }
    try {
      long n = v.decimalValue().longValueExact();
      return n >= 0 ? OptionalLong.of(n) : OptionalLong.empty();
    } catch (ArithmeticException notWholeOrTooLarge) {
      return OptionalLong.empty();
    }
  }

  /** The first characters of an answer, on one line, for a reason. */
  private static String beginning(String body) {
    String line = body.strip().replaceAll("\\s+", " ");
    return line.length() <= 60 ? line : line.substring(0, 60) + "...";
  }

  /** Why the provider at {@code url} gave no answer, in plain words. */
  static String unreachable(String url, IOException e) {
    if (e instanceof HttpConnectTimeoutException) {
      return "cannot reach "
          + url
          + ": no connection within 5s (is the provider running there, and reachable?)";
    }
    if (e instanceof HttpTimeoutException) {
      return url + ": no answer within 10s";
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.nio.channels.UnresolvedAddressException
          || t instanceof java.net.UnknownHostException) {
        return "cannot reach " + url + ": unknown host " + URI.create(url).getHost();
      }
    }
    if (e instanceof java.net.ConnectException) {
      String why = deepestMessage(e);
      return "cannot reach "
          + url
          + ": "
          + (why == null || why.toLowerCase(Locale.ROOT).contains("refused")
              ? "connection refused"
              : why)
          + " (is the provider running there?)";
    }
    String why = deepestMessage(e);
    return url + ": the connection failed before an answer" + (why == null ? "" : " (" + why + ")");
  }

  private static String deepestMessage(Throwable e) {
    String why = null;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        why = t.getMessage();
      }
    }
    return why;
  }

  /** The field of the provider's counts the effects gate reads (streamform provider's). */
  static final String DELIVERIES = "deliveries_per_key";

  // ---- the run's source, replayed: what each line is

  /** One line of a source file, as the run read it. */
  private record Line(
      int partition, long offset, Kind kind, Map<String, Object> values, long appendedAt) {
    Line(int partition, long offset, Kind kind, Map<String, Object> values) {
      this(partition, offset, kind, values, -1);
    }
  }

  private enum Kind {
    BLANK,
    PUNCTUATION,
    EVENT,
    UNREADABLE
  }

  private static List<Path> sourceFiles(DeclaredModel model, Path project) {
    return FileModelRun.of(model, project).files();
  }

  /**
   * Every line of the source's files, file {@code i} being partition {@code i}, split ({@link
   * BoundedLines}) and decoded ({@link JsonRecords}) as the run's {@code FileSource} does: a line
   * it quarantines (cut for its length, not a record, a key column without a value) is unreadable
   * here too.
   */
  private static List<Line> lines(DeclaredModel model, Path project) throws IOException {
    JsonRecords decoder = JsonRecords.of(model.source().schema(), model.keyColumns());
    List<Line> lines = new ArrayList<>();
    List<Path> files = sourceFiles(model, project);
    for (int p = 0; p < files.size(); p++) {
      try (BoundedLines read = BoundedLines.of(files.get(p))) {
        long o = 0;
        for (byte[] bytes = read.next(); bytes != null; bytes = read.next(), o++) {
          lines.add(
              read.tooLong()
                  ? new Line(p, o, Kind.UNREADABLE, Map.of())
                  : dev.streamform.pipelines.file.FileSource.isBlank(bytes)
                      ? new Line(p, o, Kind.BLANK, Map.of())
                      : decoded(decoder, p, o, bytes, -1));
        }
      }
    }
    return lines;
  }

  /**
   * A line or record as the run decodes it ({@link JsonRecords}): a punctuation, an event (its
   * columns with values), or unreadable where the run quarantines it.
   */
  private static Line decoded(
      JsonRecords decoder, int partition, long offset, byte[] bytes, long appendedAt) {
    try {
      JsonRecords.Decoded d = decoder.decode(bytes);
      if (d.watermark() != null) {
        return new Line(
            partition,
            offset,
            Kind.PUNCTUATION,
            Map.of(JsonRecords.WATERMARK_FIELD, d.watermark()),
            appendedAt);
      }
      Map<String, Object> values = new LinkedHashMap<>();
      d.values()
          .forEach(
              (k, v) -> {
                if (v != null) {
                  values.put(k, v);
                }
              });
      return new Line(partition, offset, Kind.EVENT, values, appendedAt);
    } catch (JsonRecords.NotARecord | RuntimeException e) {
      return new Line(partition, offset, Kind.UNREADABLE, Map.of(), appendedAt);
    }
  }

  /** A run output damaged after the run; the message is where, what is wrong and the fix. */
  static final class DamagedOutputException extends IOException {
    private static final long serialVersionUID = 1L;

    DamagedOutputException(String where, String what) {
      super(
          where
              + ": "
              + what
              + (where.startsWith("topic ")
                  ? " — a topic keeps every record written to it and a run only appends, so the"
                      + " gates that read it cannot be measured on it: leave them out (--skip"
                      + " offsets,disposition), or run the model with outputs to topics of their"
                      + " own"
                  : " — the run writes this output; restore it as the run wrote it, or run the"
                      + " model again (streamform run) to write it anew"));
    }
  }

  /**
   * The run's rows of one output file, each with its (partition, offset) and, for the late output
   * ({@code late}), its window_start; blank lines are skipped.
   *
   * @throws DamagedOutputException naming the file and line of the first row that is not UTF-8, not
   *     JSON, not an object or lacks one of those fields
   */
  static List<JsonNode> rows(Path file, boolean late) throws IOException {
    List<JsonNode> rows = new ArrayList<>();
    if (!Files.exists(file)) {
      return rows;
    }
    byte[] bytes = Files.readAllBytes(file);
    int line = 0;
    for (int start = 0; start < bytes.length; ) {
      int end = start;
      while (end < bytes.length && bytes[end] != '\n') {
        end++;
      }
      line++;
      byte[] text = java.util.Arrays.copyOfRange(bytes, start, end);
      start = end + 1;
      JsonNode row = row(file + ":" + line, text, late);
      if (row != null) {
        rows.add(row);
      }
    }
    return rows;
  }

  /**
   * One row of a side output ({@code where}: its file and line, or topic and position), checked as
   * {@link #rows(Path, boolean)} checks a line; null for a blank line.
   */
  static JsonNode row(String where, byte[] bytes, boolean late) throws DamagedOutputException {
    int bad = NotUtf8.firstMalformedByte(bytes);
    if (bad >= 0) {
      throw new DamagedOutputException(
          where,
          String.format(
              Locale.ROOT,
              "not UTF-8 text: byte %d of the line is 0x%02X, which UTF-8 does not allow there",
              bad + 1,
              bytes[bad] & 0xFF));
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (text.isBlank()) {
      return null;
    }
    JsonNode row;
    try (com.fasterxml.jackson.core.JsonParser parser = JSON.createParser(text)) {
      row = JSON.readTree(parser);
      if (parser.nextToken() != null) {
        throw new DamagedOutputException(
            where,
            "more follows the row at column "
                + parser.currentTokenLocation().getColumnNr()
                + " (one JSON object per line)");
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new DamagedOutputException(
          where + ":" + e.getLocation().getColumnNr(), "not JSON: " + JsonProblems.reason(e));
    } catch (IOException e) {
      throw new DamagedOutputException(where, "not JSON: " + e.getMessage());
    }
    if (row == null || !row.isObject()) {
      throw new DamagedOutputException(
          where,
          "not a JSON object but "
              + (row == null ? "nothing" : row.getNodeType().name().toLowerCase(Locale.ROOT))
              + " (each row is an object with partition, offset"
              + (late ? ", window_start" : "")
              + ")");
    }
    if (!late && !row.has("partition") && row.has("topic") && row.has("value_bytes")) {
      // an output row too large for Kafka, quarantined in its place (ADR 0199): it is no event's
      // disposition, and the event it came from is counted where the run put it
      return null;
    }
    requireWholeNumber(where, row, "partition");
    requireWholeNumber(where, row, "offset");
    if (late) {
      JsonNode start = row.get("window_start");
      String problem =
          start == null
              ? "has no \"window_start\""
              : !start.isTextual() ? "has \"window_start\": " + start + ", not a timestamp" : null;
      if (problem == null) {
        try {
          Timestamps.parse(start.asText());
        } catch (RuntimeException e) {
          problem = "has \"window_start\": " + start + ", not an RFC 3339 timestamp";
        }
      }
      if (problem != null) {
        throw new DamagedOutputException(where, "the row " + problem);
      }
    }
    return row;
  }

  private static void requireWholeNumber(String where, JsonNode row, String field)
      throws DamagedOutputException {
    JsonNode v = row.get(field);
    if (v == null) {
      throw new DamagedOutputException(where, "the row has no \"" + field + "\"");
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
      throw new DamagedOutputException(
          where, "the row has \"" + field + "\": " + v + ", not a whole number from 0");
    }
  }

  private static String at(JsonNode row) {
    return row.path("partition").asInt() + "-" + row.path("offset").asLong();
  }

  /**
   * The output of the events the run dropped as duplicates (OutputTopics' name, as the run writes
   * it); empty without {@code event_id}: the run writes none, so a file or topic of that name is
   * not the run's and is not read.
   */
  private static Optional<String> duplicatesTopic(DeclaredModel model) {
    return ModelSinks.of(model).duplicatesTopic();
  }

  /** The rows of the run's duplicates output; none for a model without {@code event_id}. */
  private List<JsonNode> duplicateRows(DeclaredModel model) throws IOException {
    Optional<String> topic = duplicatesTopic(model);
    return topic.isEmpty() ? List.of() : run.rows(topic.get());
  }

  // ---- offsets: each source offset accounted for exactly once

  /**
   * An offset accounted for twice: one in two outputs or repeated in one, else one the late output
   * has more rows of than it has windows ({@code k} per event).
   */
  private static Optional<String> firstDuplicated(
      List<String> twice, Map<String, Integer> lateRows, long k) {
    if (!twice.isEmpty()) {
      return Optional.of(twice.get(0));
    }
    return lateRows.entrySet().stream()
        .filter(e -> e.getValue() > k)
        .map(Map.Entry::getKey)
        .sorted()
        .findFirst();
  }

  /** Who claims an offset: {@code "a.jsonl twice"}, {@code "a.jsonl and b.jsonl"}. */
  private static String claimants(List<String> claims) {
    Map<String, Integer> times = new LinkedHashMap<>();
    claims.forEach(c -> times.merge(c, 1, Integer::sum));
    List<String> named = new ArrayList<>();
    times.forEach((c, n) -> named.add(c + (n == 1 ? "" : n == 2 ? " twice" : " " + n + " times")));
    return String.join(" and ", named);
  }

  /**
   * One partition's events in the latest revision of a window: the smallest and largest offset, how
   * many, and which revision of which window.
   */
  record Range(long min, long max, long count, String logicalWindow, int revision, String window) {
    String named() {
      return "revision " + revision + " of window " + window;
    }
  }

  /** {@code "0-4"} as a person reads it: {@code "partition 0 offset 4"}. */
  private static String named(String partitionOffset) {
    int dash = partitionOffset.indexOf('-');
    return dash < 0
        ? partitionOffset
        : "partition "
            + partitionOffset.substring(0, dash)
            + " offset "
            + partitionOffset.substring(dash + 1);
  }

  private Verdict offsets(ModelLedger l, DeclaredModel model, int g, GateThresholds t, String th)
      throws SQLException, IOException {
    if (run.unavailable != null) {
      return Verdict.notMeasured("offsets", th, run.unavailable);
    }
    ModelSinks sinks = ModelSinks.of(model);
    long k = windowsPerEvent(model.model().window().get());
    // a topic is written at least once: a position repeated there is a replay (docs/decisions/0037)
    boolean once = run.kafka == null;
    // the late output has no generation: it counts for generation g only where g's own policy
    // refuses the event (the oracle's replay); a shadow with a larger allowed lateness took the
    // live run's too-late events in, and they must be in its revisions (docs/decisions/0053)
    Set<String> refused = new HashSet<>();
    Replay replay = run.replay();
    for (WindowedOutcome.Late late : replay.outcome().late()) {
      refused.add(replay.position(late.eventId()) + "@" + late.windowStart());
    }
    Set<String> tooLate = new HashSet<>(); // the events this generation's policy refuses
    refused.forEach(w -> tooLate.add(w.substring(0, w.indexOf('@'))));
    // who accounts for each offset, for naming the first one accounted for twice
    Map<String, List<String>> claims = new HashMap<>();
    Map<String, Integer> lateRows = new HashMap<>();
    Set<String> lateSeen = new HashSet<>();
    Set<String> othersLate = new HashSet<>();
    for (JsonNode r : run.rows(sinks.lateTopic())) {
      String window = at(r) + "@" + Timestamps.parse(r.path("window_start").asText());
      if (!refused.contains(window)) {
        othersLate.add(window);
      } else if (once || lateSeen.add(window)) {
        lateRows.merge(at(r), 1, Integer::sum);
        claims
            .computeIfAbsent(at(r), x -> new ArrayList<>())
            .add(run.where(sinks.lateTopic()) + (k > 1 ? " (window " + window + ")" : ""));
      }
    }
    Set<String> duplicates = new HashSet<>();
    List<String> twice = new ArrayList<>();
    for (JsonNode r : duplicateRows(model)) {
      // a position repeated on a topic is a replay, one claim (ADR 0037), as for quarantine
      boolean again = !duplicates.add(at(r));
      if (once || !again) {
        claims
            .computeIfAbsent(at(r), x -> new ArrayList<>())
            .add(run.where(duplicatesTopic(model).get()));
      }
      if (again && once) {
        twice.add(at(r));
      }
    }
    Set<String> quarantined = new HashSet<>();
    for (JsonNode r : run.rows(sinks.quarantineTopic())) {
      boolean again = !quarantined.add(at(r));
      if (once || !again) {
        claims
            .computeIfAbsent(at(r), x -> new ArrayList<>())
            .add(run.where(sinks.quarantineTopic()));
      }
      if ((again && once)
          || (!again && (duplicates.contains(at(r)) || lateRows.containsKey(at(r))))) {
        twice.add(at(r));
      }
    }
    for (String d : duplicates) {
      if (lateRows.containsKey(d)) {
        twice.add(d);
      }
    }
    // per partition, each window's latest revision: {min, max, count} of the events it includes
    Map<Integer, List<Range>> ranges = new TreeMap<>();
    try (Connection c = l.pool().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT DISTINCT ON (r.projection_id) r.offsets::text, p.logical_window_id,"
                    + " r.revision, p.window_key::text, p.window_start FROM"
                    + " streamform.correction_ledger r JOIN streamform.projection p USING"
                    + " (projection_id) WHERE p.model = ? AND p.generation = ?"
                    + " ORDER BY r.projection_id, r.revision DESC")) {
      s.setString(1, l.name());
      s.setInt(2, g);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          JsonNode offsets = JSON.readTree(rs.getString(1));
          String window =
              rs.getString(4) + " " + rs.getObject(5, java.time.OffsetDateTime.class).toInstant();
          for (Iterator<Map.Entry<String, JsonNode>> i = offsets.fields(); i.hasNext(); ) {
            Map.Entry<String, JsonNode> e = i.next();
            JsonNode o = e.getValue();
            ranges
                .computeIfAbsent(Integer.parseInt(e.getKey()), x -> new ArrayList<>())
                .add(
                    new Range(
                        o.path("min").asLong(),
                        o.path("max").asLong(),
                        o.path("count").asLong(),
                        rs.getString(2),
                        rs.getInt(3),
                        window));
          }
        }
      }
    }
    Optional<RowPredicate> where = model.query().where();
    String eventTime = model.source().eventTime().orElse("");
    Map<Integer, long[]> expected = new TreeMap<>(); // partition -> {slots, uncovered}
    long silent = 0;
    long read = 0;
    String firstMissing = null; // the first offset no output accounts for, named
    String claimedTwice = null; // the first offset in a side output and a revision's range, named
    for (Line line : run.source()) {
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
      Optional<Range> range = inside(ranges.get(line.partition()), line.offset());
      if (duplicates.contains(id) || quarantined.contains(id)) {
        if (claimedTwice == null && range.isPresent()) {
          List<String> by = new ArrayList<>(claims.getOrDefault(id, List.of()));
          by.add(range.get().named());
          claimedTwice = named(id) + ", claimed by " + claimants(by);
        }
        continue;
      }
      e[0] += k;
      if (!lateRows.containsKey(id) && range.isEmpty()) {
        e[1]++;
        firstMissing = firstMissing == null ? named(id) : firstMissing;
      } else if (!lateRows.containsKey(id) && tooLate.contains(id) && firstMissing == null) {
        // inside a revision's range, yet refused by this generation's policy: its late row is gone
        firstMissing =
            named(id)
                + " (too late for this generation's policy, not in "
                + run.where(sinks.lateTopic())
                + ")";
      }
    }
    Accounting counted = account(expected, ranges, lateRows, run.logStart, k);
    long missing = counted.missing();
    long duplicated = twice.size() + counted.duplicated();
    return Verdict.measured(
        "offsets",
        missing <= t.missingOffsets() && duplicated <= t.duplicatedOffsets(),
        missing + "/" + duplicated,
        th,
        "missing/duplicated of "
            + read
            + " source offsets ("
            + silent
            + " without output by design: blank, punctuation, filtered by WHERE"
            + (run.notRetained > 0
                ? "; " + run.notRetained + " before the log start, deleted by retention, unchecked"
                : "")
            + (counted.unchecked().isEmpty()
                ? ""
                : "; counts not checked, only each offset's presence, for "
                    + String.join(", ", counted.unchecked()))
            + (othersLate.isEmpty()
                ? ""
                : "; "
                    + othersLate.size()
                    + (othersLate.size() == 1 ? " row of " : " rows of ")
                    + run.where(sinks.lateTopic())
                    + " refused by another policy, accepted by this generation's: looked for in"
                    + " its revisions")
            + (missing == 0
                ? ""
                : "; first missing: "
                    + (firstMissing != null ? firstMissing : shortRevision(replay, ranges)))
            + (duplicated == 0
                ? ""
                : "; first duplicated: "
                    + firstDuplicated(twice, lateRows, k)
                        .map(id -> named(id) + ", claimed by " + claimants(claims.get(id)))
                        .orElse(
                            claimedTwice != null
                                ? claimedTwice
                                : "not one offset claimed twice by name: the revisions count more"
                                    + " events than there are offsets to account for"))
            + ")");
  }

  /** What the per-partition counts of {@link #account} found. */
  record Accounting(long missing, long duplicated, List<String> unchecked) {}

  /**
   * Per partition, the events the source puts there ({@code expected}: {slots, of them in no
   * revision's range}, {@code k} slots an event) against the events the revisions' ranges and the
   * late rows count: fewer is missing, more is duplicated. {@code logStart} is each partition's
   * first retained offset (a Kafka topic after retention; none for files): the expected slots count
   * only retained records.
   */
  static Accounting account(
      Map<Integer, long[]> expected,
      Map<Integer, List<Range>> ranges,
      Map<String, Integer> lateRows,
      Map<Integer, Long> logStart,
      long k) {
    long missing = 0;
    long duplicated = 0;
    List<String> unchecked = new ArrayList<>();
    for (Map.Entry<Integer, long[]> e : expected.entrySet()) {
      int partition = e.getKey();
      long start = logStart.getOrDefault(partition, 0L);
      long accounted = 0;
      boolean across = false;
      for (Range r : ranges.getOrDefault(partition, List.of())) {
        if (r.max() < start) {
          continue; // every event it counts was deleted: not expected either
        }
        across |= r.min() < start;
        accounted += r.count();
      }
      if (across) {
        // its count cannot be split at the log start: only each offset's presence is checked
        unchecked.add(
            "partition "
                + partition
                + " (a window holds events on both sides of its log start, offset "
                + start
                + ": its count includes deleted events)");
        missing += e.getValue()[1];
        continue;
      }
      for (Map.Entry<String, Integer> late : lateRows.entrySet()) {
        String at = late.getKey();
        if (at.startsWith(partition + "-")
            && Long.parseLong(at.substring(at.indexOf('-') + 1)) >= start) {
          accounted += late.getValue();
        }
      }
      long deficit = e.getValue()[0] - accounted;
      missing += Math.max(e.getValue()[1], deficit > 0 ? (deficit + k - 1) / k : 0);
      duplicated += deficit < 0 ? (-deficit + k - 1) / k : 0;
    }
    return new Accounting(missing, duplicated, unchecked);
  }

  /**
   * A missing offset inside the revisions' ranges: the first window whose latest revision counts
   * fewer of a partition's events than the replay puts there, and the range it is in.
   */
  private static String shortRevision(Replay replay, Map<Integer, List<Range>> ranges) {
    Map<String, WindowedOutcome.Row> latest = new HashMap<>();
    for (WindowedOutcome.Row r : replay.outcome().rows()) {
      if (r.revision() > 0) {
        latest.put(r.logicalWindowId(), r);
      }
    }
    for (Map.Entry<Integer, List<Range>> p : ranges.entrySet()) {
      for (Range r :
          p.getValue().stream().sorted((a, b) -> Long.compare(a.min(), b.min())).toList()) {
        WindowedOutcome.Row replayed = latest.get(r.logicalWindow());
        WindowedOutcome.Offsets o = replayed == null ? null : replayed.offsets().get(p.getKey());
        if (o != null && o.count() > r.count()) {
          return "one of partition "
              + p.getKey()
              + " offsets "
              + r.min()
              + " to "
              + r.max()
              + " ("
              + r.named()
              + " counts "
              + r.count()
              + " of the "
              + o.count()
              + " events the replay puts there)";
        }
      }
    }
    return "not one offset by name: the revisions count fewer events than there are offsets to"
        + " account for, and no window fewer than the replay puts there";
  }

  /**
   * The range that holds {@code offset}: one it is an end of (certainly the window's), else the
   * narrowest (ranges of windows whose events interleave overlap).
   */
  private static Optional<Range> inside(List<Range> ranges, long offset) {
    Range best = null;
    if (ranges != null) {
      for (Range r : ranges) {
        if (r.min() == offset || r.max() == offset) {
          return Optional.of(r);
        }
        if (r.min() < offset
            && offset < r.max()
            && (best == null || r.max() - r.min() < best.max() - best.min())) {
          best = r;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  /** How many windows contain each event: size / every for hopping windows, else 1. */
  private static long windowsPerEvent(WindowSpec w) {
    return w.isHopping() ? w.size().toMillis() / w.every().toMillis() : 1;
  }

  // ---- disposition: the oracle's too-late events, each in the late (or duplicates) output

  private Verdict disposition(DeclaredModel model, GateThresholds t, String th) throws IOException {
    if (run.unavailable != null) {
      return Verdict.notMeasured("disposition", th, run.unavailable);
    }
    Replay replay = run.replay();
    ModelSinks sinks = ModelSinks.of(model);
    Set<String> found = new HashSet<>();
    for (JsonNode r : run.rows(sinks.lateTopic())) {
      found.add(at(r) + "@" + Timestamps.parse(r.path("window_start").asText()));
    }
    Set<String> duplicates = new HashSet<>();
    for (JsonNode r : duplicateRows(model)) {
      duplicates.add(at(r));
    }
    int expected = replay.outcome().late().size();
    int kept = 0;
    List<String> without = new ArrayList<>();
    for (WindowedOutcome.Late late : replay.outcome().late()) {
      String id = replay.position(late.eventId());
      if (found.contains(id + "@" + late.windowStart()) || duplicates.contains(id)) {
        kept++;
      } else {
        without.add(id.replace("-", " offset ") + " window " + late.windowStart());
      }
    }
    double share = expected == 0 ? 100 : 100.0 * kept / expected;
    return Verdict.measured(
        "disposition",
        share >= t.lateDispositionPercent(),
        against(share, t.lateDispositionPercent()) + "%",
        th,
        kept
            + " of "
            + expected
            + " too-late events (per refusing window) in "
            + run.where(sinks.lateTopic())
            + (without.isEmpty() ? "" : "; without one: partition " + without.get(0)));
  }

  // ---- latency: a correction's append time -> the ledger row of the revision that published it

  private Verdict latency(ModelLedger l, DeclaredModel model, int g, GateThresholds t, String th)
      throws SQLException, IOException {
    if (run.kafka == null) {
      return Verdict.notMeasured(
          "latency",
          th,
          model.source().connector() == Connector.FILE
              ? "a file source has no append time: measured on a Kafka run only"
              : run.unavailable);
    }
    // the revisions of each window in the ledger, by logical window, in revision order
    Map<String, List<Published>> ledger = new HashMap<>();
    try (Connection c = l.pool().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT p.logical_window_id, r.offsets::text, r.recorded_at FROM"
                    + " streamform.correction_ledger r JOIN streamform.projection p USING"
                    + " (projection_id) WHERE p.model = ? AND p.generation = ?"
                    + " ORDER BY p.logical_window_id, r.revision")) {
      s.setString(1, l.name());
      s.setInt(2, g);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          ledger
              .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
              .add(new Published(JSON.readTree(rs.getString(2)), rs.getTimestamp(3).toInstant()));
        }
      }
    }
    // the oracle says which events are corrections and of which window: each of its corrected
    // revisions adds one event, its partition's new largest offset in that window
    Replay replay = run.replay();
    Map<String, Map<Integer, Long>> counted = new HashMap<>();
    List<Long> latencies = new ArrayList<>();
    int unpublished = 0;
    String slowest = "";
    long worst = -1;
    for (WindowedOutcome.Row row : replay.outcome().rows()) {
      if (row.status() == WindowStatus.EARLY || row.status() == WindowStatus.FINAL) {
        continue;
      }
      Map<Integer, Long> before =
          counted.computeIfAbsent(row.logicalWindowId(), k -> new HashMap<>());
      for (Map.Entry<Integer, WindowedOutcome.Offsets> e : row.offsets().entrySet()) {
        long was = before.getOrDefault(e.getKey(), 0L);
        before.put(e.getKey(), e.getValue().count());
        if (row.status() != WindowStatus.CORRECTED || e.getValue().count() <= was) {
          continue;
        }
        Line event = replay.line(e.getKey(), e.getValue().max());
        Optional<Instant> recorded =
            ledger.getOrDefault(row.logicalWindowId(), List.of()).stream()
                .filter(p -> p.includes(event.partition(), event.offset()))
                .map(Published::recordedAt)
                .findFirst();
        long ms =
            recorded.isPresent()
                ? recorded.get().toEpochMilli() - event.appendedAt()
                : Long.MAX_VALUE;
        unpublished += recorded.isPresent() ? 0 : 1;
        latencies.add(ms);
        if (ms > worst) {
          worst = ms;
          slowest = event.partition() + " offset " + event.offset();
        }
      }
    }
    if (latencies.isEmpty()) {
      return Verdict.notMeasured(
          "latency", th, "the run has no correction within allowed lateness to measure");
    }
    latencies.sort(null);
    long p99 = latencies.get((int) Math.ceil(0.99 * latencies.size()) - 1);
    return Verdict.measured(
        "latency",
        p99 < t.publicationLatencyP99().toMillis(),
        latencyAgainst(p99, t.publicationLatencyP99().toMillis()),
        th,
        "P99 of "
            + latencies.size()
            + " corrections within allowed lateness, append time ("
            + run.timestampType
            + ") -> recorded_at of the first revision that includes it; slowest "
            + seconds(worst)
            + " (partition "
            + slowest
            + ")"
            + (unpublished > 0 ? "; " + unpublished + " in no revision of the ledger" : ""));
  }

  private static String seconds(long ms) {
    return ms == Long.MAX_VALUE ? "never" : String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
  }

  /** A ledger revision: per partition its events' offset range, and when it was recorded. */
  private record Published(JsonNode offsets, Instant recordedAt) {
    boolean includes(int partition, long offset) {
      JsonNode o = offsets.get(String.valueOf(partition));
      return o != null && o.path("min").asLong() <= offset && offset <= o.path("max").asLong();
    }
  }

  /**
   * The run's source replayed through the oracle, one fixture item per line or record: an item's
   * position among its partition's items maps back to its offset.
   */
  private record Replay(WindowedOutcome outcome, Map<Integer, List<Line>> items) {
    Line line(int partition, long index) {
      return items.get(partition).get((int) index);
    }

    /** The oracle's {@code <partition>-<position>} as {@code <partition>-<offset>}. */
    String position(String eventId) {
      int dash = eventId.indexOf('-');
      int p = Integer.parseInt(eventId.substring(0, dash));
      return p + "-" + line(p, Long.parseLong(eventId.substring(dash + 1))).offset();
    }
  }

  // ---- what the gates read of the run besides the ledger: its source and side outputs

  /**
   * A file run: the source's lines and the output files in --output. A Kafka run: the source
   * topic's records up to its end offsets when the gates start, and the late, duplicates and
   * quarantine topics, read with the command's Kafka options.
   */
  private static final class RunInputs implements AutoCloseable {
    private final DeclaredModel model;
    private final Path project;
    private final Path dir;
    final KafkaConnection kafka;
    final String unavailable;
    private KafkaConsumer<byte[], byte[]> consumer;
    private List<Line> source;
    private Replay replay;
    private final Map<String, List<JsonNode>> outputs = new HashMap<>();
    long notRetained;

    /**
     * Each source partition's first retained offset (a Kafka topic's log start; none for files).
     */
    final Map<Integer, Long> logStart = new TreeMap<>();

    String timestampType = "CreateTime";

    private RunInputs(
        DeclaredModel model, Path project, Path dir, KafkaConnection kafka, String unavailable) {
      this.model = model;
      this.project = project;
      this.dir = dir;
      this.kafka = kafka;
      this.unavailable = unavailable;
    }

    /** Null after printing why the Kafka options or the output folder cannot be used. */
    static RunInputs of(GatesCommand c, DeclaredModel model, Path dir, PrintWriter err) {
      Path project = c.target.project;
      if (model.source().connector() == Connector.FILE) {
        // a set a run was stopped while replacing: two runs' files, counts of neither (ADR 0101)
        Optional<String> incomplete = OutputFolder.incomplete(dir);
        if (incomplete.isPresent()) {
          err.println("streamform gates: " + incomplete.get());
          return null;
        }
        return new RunInputs(
            model,
            project,
            dir,
            null,
            Files.isDirectory(dir)
                ? null
                : "no run outputs in " + dir + " (streamform run --output writes them)");
      }
      boolean given =
          c.kafka.bootstrapServers != null
              || c.kafka.propertiesFile != null
              || model.source().kafkaProperties().isPresent();
      if (!given) {
        return new RunInputs(
            model,
            project,
            dir,
            null,
            "no --bootstrap-servers: the source topic and the late, duplicates and quarantine"
                + " topics cannot be read");
      }
      Optional<KafkaConnection> connection = c.kafka.connection(null, project, model.source(), err);
      return connection.map(k -> new RunInputs(model, project, dir, k, null)).orElse(null);
    }

    String describe() {
      return kafka == null
          ? dir.toString()
          : "topics "
              + model.source().topic().get()
              + ", "
              + ModelSinks.of(model).lateTopic()
              + ", "
              + duplicatesTopic(model).map(d -> d + ", ").orElse("")
              + ModelSinks.of(model).quarantineTopic()
              + " at "
              + kafka.bootstrapServers();
    }

    String where(String output) {
      return kafka == null ? output + ".jsonl" : "topic " + output;
    }

    /** Every line or record of the source, in the order the replay takes them. */
    List<Line> source() throws IOException {
      if (source == null) {
        source = kafka == null ? lines(model, project) : records();
      }
      return source;
    }

    /** The rows of a side output: a file's lines, or a topic's record values. */
    List<JsonNode> rows(String output) throws IOException {
      List<JsonNode> rows = outputs.get(output);
      boolean late = output.equals(ModelSinks.of(model).lateTopic());
      if (rows == null) {
        rows = new ArrayList<>();
        if (kafka == null) {
          rows = GatesCommand.rows(dir.resolve(output + ".jsonl"), late);
        } else {
          for (List<ConsumerRecord<byte[], byte[]>> p : read(output, false).values()) {
            for (ConsumerRecord<byte[], byte[]> r : p) {
              JsonNode row =
                  row(
                      "topic " + output + " partition " + r.partition() + " offset " + r.offset(),
                      r.value() == null ? new byte[0] : r.value(),
                      late);
              if (row != null) {
                rows.add(row);
              }
            }
          }
        }
        outputs.put(output, rows);
      }
      return rows;
    }

    Replay replay() throws IOException {
      if (replay == null) {
        Fixture.Builder b = Fixture.builder("gates", model.model().name());
        Map<Integer, List<Line>> items = new TreeMap<>();
        for (Line line : source()) {
          items.computeIfAbsent(line.partition(), p -> new ArrayList<>()).add(line);
          if (line.kind() == Kind.PUNCTUATION) {
            b.watermark(
                Optional.of(line.partition()),
                (Instant) line.values().get(JsonRecords.WATERMARK_FIELD));
          } else {
            // a blank or unreadable line: an event without time, which the oracle quarantines
            b.event(line.partition(), line.values());
          }
        }
        replay = new Replay(WindowedOracle.of(model).run(b.build()), items);
      }
      return replay;
    }

    /**
     * The source topic's records as the job decodes them ({@link JsonRecords}), merged across
     * partitions by append time (each partition in offset order), as the job read them.
     */
    private List<Line> records() throws IOException {
      JsonRecords decoder = JsonRecords.of(model.source().schema(), model.keyColumns());
      List<List<Line>> partitions = new ArrayList<>();
      for (List<ConsumerRecord<byte[], byte[]>> p :
          read(model.source().topic().get(), true).values()) {
        List<Line> lines = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : p) {
          timestampType = r.timestampType().toString();
          lines.add(decoded(decoder, r.partition(), r.offset(), r.value(), r.timestamp()));
        }
        partitions.add(lines);
      }
      // a k-way merge by the head's append time: each partition stays in offset order
      int[] next = new int[partitions.size()];
      PriorityQueue<Integer> heads =
          new PriorityQueue<>(
              java.util.Comparator.comparingLong(
                      (Integer i) -> partitions.get(i).get(next[i]).appendedAt())
                  .thenComparingInt(i -> partitions.get(i).get(next[i]).partition()));
      for (int i = 0; i < partitions.size(); i++) {
        if (!partitions.get(i).isEmpty()) {
          heads.add(i);
        }
      }
      List<Line> merged = new ArrayList<>();
      while (!heads.isEmpty()) {
        int i = heads.poll();
        merged.add(partitions.get(i).get(next[i]++));
        if (next[i] < partitions.get(i).size()) {
          heads.add(i);
        }
      }
      return merged;
    }

    /**
     * Every record of {@code topic} up to the end offsets it has now, per partition in offset
     * order; a side topic that does not exist has none, a source topic must exist.
     */
    private Map<Integer, List<ConsumerRecord<byte[], byte[]>>> read(String topic, boolean source)
        throws IOException {
      Map<Integer, List<ConsumerRecord<byte[], byte[]>>> records = new TreeMap<>();
      try {
        if (consumer == null) {
          consumer = ConsumeCommand.consumer(kafka);
        }
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(20));
        if (infos == null || infos.isEmpty()) {
          if (source) {
            throw new IOException(
                "topic " + topic + ": no such topic at " + kafka.bootstrapServers());
          }
          return records;
        }
        List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        Map<TopicPartition, Long> start = consumer.beginningOffsets(partitions);
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        for (TopicPartition tp : partitions) {
          records.put(tp.partition(), new ArrayList<>());
          if (source) {
            notRetained += start.get(tp);
            logStart.put(tp.partition(), start.get(tp));
          }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
          if (System.nanoTime() > deadline) {
            throw new IOException(
                "topic " + topic + ": not read to its end offsets " + end + " within 60 s");
          }
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
            if (r.offset() < end.get(new TopicPartition(topic, r.partition()))) {
              records.get(r.partition()).add(r);
            }
          }
        }
        return records;
      } catch (KafkaException e) {
        throw KafkaRefusedException.of("read topic " + topic, kafka, e);
      }
    }

    @Override
    public void close() {
      if (consumer != null) {
        consumer.close(Duration.ofSeconds(5));
      }
    }
  }

  /**
   * {@code figure} with one decimal, or as many more (up to six) as it takes for the printed figure
   * to compare with {@code threshold} as the figure itself does: a figure just below a threshold
   * never reads as equal to it or above it (found by a read-only audit of the contract's
   * boundaries: {@code FAIL disposition 66.7% threshold >= 66.7%}, {@code PASS latency 0.4s
   * threshold < 0s}).
   */
  static String against(double figure, double threshold) {
    java.math.BigDecimal exact = java.math.BigDecimal.valueOf(figure);
    int sign = Double.compare(figure, threshold);
    java.math.BigDecimal limit = java.math.BigDecimal.valueOf(threshold);
    for (int decimals = 1; decimals <= 6; decimals++) {
      java.math.BigDecimal shown = exact.setScale(decimals, java.math.RoundingMode.HALF_UP);
      if (Integer.signum(shown.compareTo(limit)) == Integer.signum(sign)) {
        return shown.toPlainString();
      }
    }
    return exact.toPlainString();
  }

  /**
   * A P99 latency beside its threshold, as {@link #against} prints it; {@code never} for a
   * correction in no revision ({@code Long.MAX_VALUE}).
   */
  static String latencyAgainst(long p99, long thresholdMs) {
    return p99 == Long.MAX_VALUE ? "never" : against(p99 / 1000.0, thresholdMs / 1000.0) + "s";
  }

  /** A declared percentage as written: at least one decimal, then every one it has (66.66%). */
  static String exactPercent(double p) {
    java.math.BigDecimal d = java.math.BigDecimal.valueOf(p).stripTrailingZeros();
    return (d.scale() < 1 ? d.setScale(1) : d).toPlainString() + "%";
  }

  /** A declared duration: whole seconds as {@code 60s}, else in milliseconds ({@code 357ms}). */
  static String exactDuration(long ms) {
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }
}

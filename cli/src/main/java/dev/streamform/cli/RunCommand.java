package dev.streamform.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.core.text.Counts;
import dev.streamform.pipelines.file.FileModelRun;
import dev.streamform.pipelines.file.OutputFolder;
import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.pipelines.kafka.KafkaModelPipeline;
import dev.streamform.pipelines.kafka.KafkaTopics;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.plan.PlanDiff;
import dev.streamform.policies.plan.PlanManifest;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import dev.streamform.sink.DatabaseRetry;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.LedgerSchema;
import dev.streamform.sink.LedgerWriter;
import dev.streamform.sink.RevisionSink;
import dev.streamform.sink.decisions.DecisionLedger;
import dev.streamform.sink.decisions.DecisionLedgerSink;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.StreamformMetrics;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.beam.runners.flink.FlinkDetachedRunnerResult;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.StreamingOptions;
import org.apache.flink.core.execution.JobClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform run <project> --model M}: runs a model as a streaming job reading its Kafka
 * source and writing its changelog (or window records), late and quarantine topics ({@link
 * KafkaModelPipeline}); or, for a file source, reads its files to their end and writes the same
 * three outputs as JSON lines files ({@link FileModelRun}), printing the counts. Blocks until the
 * job ends or the command is interrupted; with {@code --detach} (a Flink cluster only) prints the
 * job id once the cluster accepted the job and returns.
 */
@Command(
    name = "run",
    header = "Runs a model on its file or Kafka source, on the DirectRunner or Flink.",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a model. A file source (connector: file) is read to its end: the changelog or window"
          + " records, late events and quarantined lines go to <model>.jsonl, <model>.late.jsonl"
          + " and <model>.quarantine.jsonl in --output (or to the topics below with"
          + " --bootstrap-servers), and the counts are printed. A kafka source runs as a streaming"
          + " job: reads the topic with the declared clock, writes the changelog to the upsert"
          + " topic <model> (key: the key columns as JSON; value: the row with op), late events to"
          + " <model>.late and records that cannot be processed to <model>.quarantine, each with"
          + " its reason (streamform.yml may name other topics). A windowed model writes its"
          + " previews, revisions and final records to <model> (key: the key columns and"
          + " window_start; value: the row with window_start, window_end, status, revision and"
          + " identity) and events too late for a window to <model>.late. With --jdbc-url, its"
          + " revisions and final records also go to that PostgreSQL database (the revision ledger:"
          + " streamform ledger, streamform alias), and a revision that makes one of the model's"
          + " declared effects true prepares it in the same transaction (streamform dispatch"
          + " delivers it). A revision or final record that differs from the one the ledger holds"
          + " for it (the same generation run again on other input or with another policy) is"
          + " refused and recorded, never written over; once the job ends, the run prints how many"
          + " and exits 1, and so does every later run that offers one again (it stays recorded"
          + " once; streamform ledger verify lists them). A scoring model (decisions:) writes its"
          + " decisions to <model>.decisions (key: the event id; every revision kept), late events"
          + " to <model>.late (ignored, revising) and <model>.reconcile (reconciled), and events it"
          + " cannot score to <model>.dead_letters, each with its reason; with --jdbc-url its"
          + " decisions and reconcile queue also go to the decision ledger (streamform decisions"
          + " show, verify), once per decision_id. A source with event_id drops repeated events as"
          + " duplicates (to <model>.duplicates.jsonl or the topic <model>.duplicates, counted) and"
          + " quarantines a repeated id with another payload. A source with idle_after writes the"
          + " clock's idle markers (a partition going idle or resuming, with its generation and"
          + " watermark) to <model>.idle.jsonl or the topic <model>.idle. Creates missing topics"
          + " (<model> compacted for an upsert model only). Blocks until interrupted; on a Flink"
          + " cluster it says the job's id once the cluster lists it, and a job cancelled there"
          + " ends the run with exit 0; with --detach, submits to a Flink cluster, prints the job"
          + " id and returns once the job's tasks all run (at most 30 s; a job that fails before"
          + " is said with its cause, exit 1). Without"
          + " --from-savepoint a kafka source is read from its earliest offsets, so what earlier"
          + " runs published to the model's topics is published again: the run says so when it"
          + " starts, with the records its output topics already hold (a Flink job restored from a"
          + " savepoint continues instead). On the DirectRunner, and with a source-wide event_id on"
          + " every runner, an upsert model applies events in log order: a partition's last records"
          + " are applied once every partition's watermark has passed them (a silent partition"
          + " holds them until idle_after), and the run says so when it starts; on the DirectRunner"
          + " a windowed model's correction of a window that has its revision waits the same way,"
          + " and the run says so too. Ctrl-C (SIGINT) or SIGTERM ends a run with one line on"
          + " standard error: how many lines a file run had read, and that the previous output"
          + " files were left as they were (a file run replaces them only at its end).",
      "With --shadow (a windowed model, with --jdbc-url), recomputes generation N (--generation,"
          + " else the declared one) from the offsets the source topic retains (or the source"
          + " files) into that generation's own projections and ledger rows only: no topic or"
          + " output file is written, and the canonical alias does not move (compare with"
          + " streamform compare-generations, promote with streamform alias set). Effects are"
          + " prepared only for the keys that read generation N: those of a canary share (alias"
          + " set --share) onto it, or every key once it is promoted while the shadow job runs."
          + " Too-late events are replayed with the rest of the source, so a policy with a larger"
          + " allowed lateness takes them in; on files, the shadow run then reads the live run's"
          + " late output (--output, default <project>/target/<model>) and prints how many of the"
          + " events it refused are in the shadow generation's revisions now; on Kafka the job"
          + " does not end, and streamform compare-generations --bootstrap-servers prints the"
          + " same line."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:submitted and its tasks running, or not failed within 30 s (--detach), or the job"
          + " ended",
      "1:the project has problems, another run is writing to the output folder, the job failed,"
          + " the broker or cluster refused, the revision ledger refused revisions that differ"
          + " from the ones it holds (recorded; streamform ledger verify lists them), or the JVM"
          + " ran out of memory (said in one line, with the fix: STREAMFORM_JAVA_OPTS=-Xmx<size>"
          + " or --runner flink)",
      "2:bad command line, an --output that is a file or cannot be created or written"
          + " (checked before the job starts), or a restore (--from-savepoint) into a plan that"
          + " streamform plan classifies as needing a state migration or a new generation against"
          + " the plan that wrote the savepoint (checked before anything is created or submitted)",
      "130:interrupted by Ctrl-C (SIGINT), said in one line on standard error",
      "143:ended by SIGTERM, said in one line on standard error"
    })
final class RunCommand implements Callable<Integer> {
  /**
   * This run's id: the revision sink records each conflict it refuses as refused by it, and the run
   * counts those (see conflicts(); docs/decisions/0114).
   */
  private final String runId = java.util.UUID.randomUUID().toString();

  /** Set before the job: its generation holds decisions of another model version (or null). */
  private String otherVersionsNote;

  @Parameters(paramLabel = "<project>", description = "the project folder")
  Path project;

  @Option(
      names = "--model",
      paramLabel = "M",
      description = "the model to run (default: the project's only model)")
  String model;

  @Mixin KafkaOptions.OnProfileAndSource kafka;

  @Option(
      names = "--output",
      paramLabel = "DIR",
      description =
          "file source: the folder for <model>.jsonl, <model>.late.jsonl and"
              + " <model>.quarantine.jsonl (default: <project>/target/<model>); with --shadow, the"
              + " live run's folder, whose late output is read, never written")
  Path output;

  @Mixin RunnerOptions runnerOptions;

  @Option(
      names = "--detach",
      description = "Flink cluster only: print the job id once submitted and return")
  boolean detach;

  @Option(
      names = "--from-savepoint",
      paramLabel = "PATH",
      description =
          "Flink cluster only: restore the job's state and Kafka offsets from this savepoint;"
              + " refused (exit 2) on the embedded Flink runner, which cannot restore one, when"
              + " streamform plan would say the change from the plan that wrote it needs a state"
              + " migration or a new generation, and when it is a path or file: URI that does not"
              + " exist, or a folder without _metadata, while the cluster reading it is at a"
              + " loopback address")
  String savepoint;

  @Option(
      names = "--against",
      paramLabel = "<manifest.json>",
      description =
          "with --from-savepoint: the manifest of the plan that wrote the savepoint, as streamform"
              + " inspect-plan printed it (default: the one a detached run recorded for the job the"
              + " savepoint came from, in <project>/target/flink-jobs/<model>/<job id>.json)")
  Path against;

  @Option(
      names = "--jdbc-url",
      paramLabel = "URL",
      description =
          "windowed models: write the revisions to this PostgreSQL database, the revision"
              + " ledger read by streamform ledger; scoring models: the decisions and the"
              + " reconcile queue, the decision ledger read by streamform decisions (e.g."
              + " jdbc:postgresql://127.0.0.1:5432/postgres; no password in it)")
  String jdbcUrl;

  @Mixin JdbcCredentials jdbcCredentials;

  @Option(
      names = "--generation",
      paramLabel = "N",
      description =
          "windowed models: run as policy generation N instead of the declared one; the"
              + " revisions carry N (projection_id = H(logical_window_id, N))")
  Integer generation;

  @Option(
      names = "--shadow",
      description =
          "windowed models, with --jdbc-url: recompute the generation from the topic's retained"
              + " offsets (or the source files), too-late events included, into the database only"
              + " — its own projections and ledger rows; never the model's topics or output files,"
              + " never the canonical alias, never an effect")
  boolean shadow;

  @Option(
      names = "--partitions",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "partitions of topics that have to be created (default: ${DEFAULT-VALUE}); a Kafka"
              + " source's declared partitions: sizes them instead, and another N is refused; an"
              + " N that an existing source topic's count differs from is said in a note."
              + " Refused on a run that writes files, and on a shadow run (which creates no"
              + " topics) of a source that declares no partitions:")
  int partitions;

  @Spec CommandSpec spec;

  /**
   * The Beam options of a run on {@code runner}: streaming; on the DirectRunner, for a run that
   * {@code writesTopics}, also {@link KafkaModelPipeline#DIRECT_RUNNER_OPTIONS} (one worker, so
   * that each key's records reach an upsert topic in the order they were emitted:
   * docs/decisions/0116), over a profile's, which is named on {@code err} when it asked for another
   * parallelism.
   */
  static PipelineOptions pipelineOptions(
      RunnerChoice runner, boolean writesTopics, PrintWriter err) {
    boolean oneWorker = writesTopics && !runner.isFlink();
    if (oneWorker) {
      runner
          .beamOption("targetParallelism")
          .filter(p -> !p.equals("1"))
          .ifPresent(
              p ->
                  err.println(
                      "streamform run: targetParallelism="
                          + p
                          + " is not used: a run on the DirectRunner uses one worker, so each"
                          + " key's records reach their topic in the order they were made"
                          + " (docs/decisions/0116-the-directrunner-runs-a-run-on-one-worker.md)"));
    }
    RunnerChoice chosen =
        oneWorker ? runner.withBeamOptions(KafkaModelPipeline.DIRECT_RUNNER_OPTIONS) : runner;
    PipelineOptions options = chosen.options();
    options.as(StreamingOptions.class).setStreaming(true);
    return options;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    DeclaredPartitions.refuseBelowOne(spec, partitions);
    if (against != null && savepoint == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--against names the plan that wrote the savepoint of --from-savepoint; give"
              + " --from-savepoint, or leave out --against");
    }
    RunnerChoice runner;
    try {
      runner = runnerOptions.choice();
    } catch (IllegalStateException e) {
      // a Flink cluster nobody listens at, a job jar that did not build: said, not an internal
      // error
      err.println("streamform run: " + e.getMessage());
      return 1;
    }
    jdbcCredentials.check(jdbcUrl, spec.commandLine());
    PipelineOptions options = pipelineOptions(runner, false, err);
    if (runner.isFlink()) {
      FlinkPipelineOptions flink = options.as(FlinkPipelineOptions.class);
      boolean cluster = !flink.getFlinkMaster().startsWith("[");
      if (detach && !cluster) {
        throw new ParameterException(
            spec.commandLine(),
            "--detach needs a Flink cluster (--flink-master HOST:PORT or a cluster profile)");
      }
      flink.setAttachedMode(!detach);
      if (savepoint != null && !cluster) {
        // Beam's Flink runner applies a savepoint path only to a remote environment: the embedded
        // one would start with empty state from the earliest offsets (docs/decisions/0230)
        throw new ParameterException(
            spec.commandLine(),
            "--from-savepoint "
                + savepoint
                + ": a savepoint is restored only on a Flink cluster, and this run is on the"
                + " embedded Flink runner, which would start with empty state from the earliest"
                + " offsets and publish every record again: add --flink-master HOST:PORT (or"
                + " --profile flink-cluster) with --detach, or leave out --from-savepoint");
      }
      if (savepoint != null) {
        Optional<Path> noMetadata =
            SavepointLocation.withoutMetadata(savepoint, flink.getFlinkMaster());
        if (noMetadata.isPresent()) {
          // a cluster would fail the job: "no _metadata" (docs/decisions/0230)
          throw new ParameterException(
              spec.commandLine(),
              "--from-savepoint "
                  + savepoint
                  + ": "
                  + noMetadata.get()
                  + " holds no _metadata, so it is no savepoint or retained checkpoint: give the"
                  + " savepoint's folder as Flink printed it (savepoint-<the job id's first 6"
                  + " characters>-…), or a retained checkpoint's chk-<n> folder");
        }
        Optional<Path> missing = SavepointLocation.missing(savepoint, flink.getFlinkMaster());
        if (missing.isPresent()) {
          // found here, before anything is created or submitted (a cluster would fail the job)
          throw new ParameterException(
              spec.commandLine(),
              "--from-savepoint "
                  + savepoint
                  + ": "
                  + missing.get()
                  + " does not exist: give the savepoint's location as Flink printed it (a folder"
                  + " savepoint-<the job id's first 6 characters>-…, its \"location\" in the"
                  + " answer to GET /jobs/<job id>/savepoints/<request id>)");
        }
        flink.setSavepointPath(savepoint);
      }
    } else if (detach || savepoint != null) {
      throw new ParameterException(
          spec.commandLine(), (detach ? "--detach" : "--from-savepoint") + " needs --runner flink");
    }

    Optional<Project> found = ProjectArgument.load(project, "run", err);
    if (found.isEmpty()) {
      return 1;
    }
    Project loaded = found.get();
    model = ProjectArgument.model(spec.commandLine(), loaded, model);
    if (runner.isFlink()) {
      options
          .as(FlinkPipelineOptions.class)
          .setJobName(
              "streamform-"
                  + model
                  + (generation != null ? "-g" + generation : "")
                  + (shadow ? "-shadow" : ""));
    }
    DeclaredModel declared;
    try {
      declared = DeclaredModel.of(loaded, model);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--model: " + e.getMessage());
    }
    int declaredGeneration = declared.model().generation();
    if (shadow && !declared.kind().hasRevisionLedger()) {
      throw new ParameterException(
          spec.commandLine(),
          "--shadow: model '"
              + model
              + "' is "
              + declared.kind().description()
              + "; only a windowed model's revisions have generations to recompute in the shadow of"
              + " the canonical one");
    }
    if (generation != null) {
      if (!declared.kind().hasRevisionLedger()) {
        throw new ParameterException(
            spec.commandLine(),
            "--generation: model '"
                + model
                + "' is not windowed; a generation names a windowed model's projections");
      }
      if (generation < 1) {
        throw new ParameterException(
            spec.commandLine(), "--generation: a whole number from 1, got " + generation);
      }
      if (generation != declared.model().generation()) {
        err.println(
            "streamform run: generation "
                + generation
                + " ("
                + project
                + " declares generation "
                + declared.model().generation()
                + " for "
                + model
                + ")");
      }
      declared = declared.withGeneration(generation);
    }
    boolean generationOverridden = generation != null && generation != declaredGeneration;
    if (savepoint != null && declared.source().connector() != Connector.FILE) {
      // before anything is created or submitted: a restore plan would refuse is refused (ADR 0121)
      int refused = checkRestore(loaded, generationOverridden, err);
      if (refused != 0) {
        return refused;
      }
    }
    if (declared.source().connector() != Connector.FILE && runner.flinkCluster().isPresent()) {
      // a second job of the model beside one still running publishes everything again
      String cluster = runner.flinkCluster().get();
      String name = options.as(FlinkPipelineOptions.class).getJobName();
      List<String> same = ClusterJobWatch.running(cluster, name);
      if (!same.isEmpty()) {
        err.println(
            "streamform run: note: job "
                + String.join(", ", same)
                + " of the same name ("
                + name
                + ") is still RUNNING on the Flink cluster at "
                + cluster
                + ": a second job of the model publishes every record to its topics again —"
                + " cancel it first (or stop it with a savepoint and run with --from-savepoint)");
        err.flush();
      }
    }
    if (shadow && jdbcUrl == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--shadow needs --jdbc-url: a shadow run writes its"
              + " revisions only to the revision ledger, never to the model's topics");
    }
    // the declared count sizes the topics a run creates: another is refused, not ignored
    DeclaredPartitions.sizing(
        spec, partitions, project, declared.source(), "the topics a run creates", "them");
    if (shadow
        && declared.source().partitions().isEmpty()
        && spec.commandLine().getParseResult().hasMatchedOption("--partitions")) {
      // a shadow run creates no topic, so an undeclared N would be ignored: refused (ADR 0089)
      throw new ParameterException(
          spec.commandLine(),
          "--partitions "
              + partitions
              + " sizes the topics a run creates, and a shadow run creates none (it reads the"
              + " source topic and writes only revisions to the database): leave out"
              + " --partitions");
    }
    int runGeneration = declared.model().generation();
    JdbcTarget revisionLedger = null; // a windowed model's ledger: the topic's count is recorded
    RevisionSink revisionSink = null;
    DecisionLedgerSink decisionLedger = null;
    if (jdbcUrl != null && declared.kind().hasDecisionLedger()) {
      JdbcTarget target = jdbcCredentials.target(jdbcUrl, spec.commandLine());
      try (HikariDataSource pool = target.openPool("streamform-run", 2, 10_000)) {
        LedgerSchema.migrate(pool, target.describe()); // fail here, not in the job
      } catch (LedgerSchema.Unusable e) {
        err.println("streamform run: " + e.getMessage());
        return 1;
      } catch (RuntimeException | SQLException e) {
        err.println(cannotUse(target, e));
        return 1;
      }
      // a decision names its policy_generation: the generation is held to its time policy as a
      // windowed one is, before the job writes a decision (docs/decisions/0145)
      Optional<String> otherPolicy = holdPolicy(target, loaded, declared, runGeneration);
      if (otherPolicy.isPresent()) {
        err.println(otherPolicy.get());
        return 1;
      }
      decisionLedger = DecisionLedgerSink.to(target);
      otherVersionsNote = otherVersions(target, declared, runGeneration);
    } else if (jdbcUrl != null) {
      if (!declared.kind().hasRevisionLedger()) {
        throw new ParameterException(
            spec.commandLine(),
            "--jdbc-url: model '"
                + model
                + "' is an upsert model; only a windowed model's revisions and a scoring model's"
                + " decisions go to a database");
      }
      JdbcTarget target = jdbcCredentials.target(jdbcUrl, spec.commandLine());
      revisionLedger = target;
      OptionalInt canonical;
      Optional<dev.streamform.sink.CanaryShare> canary;
      Optional<Integer> declaredPartitions = declared.source().partitions();
      try (HikariDataSource pool = target.openPool("streamform-run", 2, 10_000)) {
        LedgerSchema.migrate(pool, target.describe()); // fail here, not in the job
        canonical = Ledger.at(pool).canonicalGeneration(model);
        canary = Ledger.at(pool).canary(model);
      } catch (LedgerSchema.Unusable e) {
        err.println("streamform run: " + e.getMessage());
        return 1;
      } catch (RuntimeException | SQLException e) {
        err.println(cannotUse(target, e));
        return 1;
      }
      if (declaredPartitions.isPresent()) {
        // the declared count is the generation's policy; the topic is held to it below
        Optional<String> refused =
            recordPartitions(
                target,
                declared.source().name(),
                declared.model().generation(),
                declaredPartitions.get(),
                project.resolve("sources.yml")
                    + ": source '"
                    + declared.source().name()
                    + "' declares partitions: "
                    + declaredPartitions.get(),
                true);
        if (refused.isPresent()) {
          err.println(refused.get());
          return 1;
        }
      }
      // the generation's watermark topology as recorded, before the job replaces any output
      // (docs/decisions/0141)
      Optional<String> otherPolicy = holdPolicy(target, loaded, declared, runGeneration);
      if (otherPolicy.isPresent()) {
        err.println(otherPolicy.get());
        return 1;
      }
      revisionSink = RevisionSink.to(target).forRun(runId);
      List<EffectRule> effects = DeclaredEffects.rules(declared.model());
      if (shadow) {
        if (canonical.isPresent() && canonical.getAsInt() == runGeneration) {
          err.println(
              "streamform run: generation "
                  + runGeneration
                  + " is the canonical generation of "
                  + model
                  + " (readers read it): a shadow run recomputes another generation beside it —"
                  + " give --generation N with a new N, or declare generation: N in"
                  + " streamform.yml");
          return 1;
        }
        // never the alias; effects only of the keys a canary share reads from it (ADR 0179)
        revisionSink = revisionSink.withEffects(effects).asShadow();
        err.println(
            "streamform run: shadow run of generation "
                + runGeneration
                + ": revisions go only to "
                + target.describe()
                + " (generation "
                + runGeneration
                + "'s own projections); no topic is"
                + " written, "
                + shadowEffects(runGeneration, effects, canary)
                + ", and the canonical alias stays "
                + (canonical.isPresent() ? "at generation " + canonical.getAsInt() : "unset"));
      } else if (!effects.isEmpty()) {
        revisionSink =
            revisionSink.withEffects(effects); // PREPARED in each revision's own transaction
        if (canonical.isPresent()) {
          notEvaluated(target, declared, canonical.getAsInt(), effects).ifPresent(err::println);
        }
      }
    }
    boolean writesTopics =
        !shadow
            && (declared.source().connector() != Connector.FILE
                || kafka.bootstrapServers != null
                || kafka.propertiesFile != null);
    if (writesTopics && !runner.isFlink()) {
      options = pipelineOptions(runner, true, err); // one worker: a key's records in order
    }
    if (declared.source().connector() == Connector.FILE) {
      return runOnFiles(loaded, declared, runner, options, revisionSink, decisionLedger, out, err);
    }
    if (output != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--output: model '"
              + model
              + "' reads"
              + " kafka source '"
              + declared.source().name()
              + "'; --output is for a file source");
    }
    Optional<KafkaConnection> connected =
        kafka.connection(runnerOptions.kafkaProperties(), project, declared.source(), err);
    if (connected.isEmpty()) {
      return 1;
    }
    KafkaConnection connection = connected.get();
    String bootstrapServers = connection.bootstrapServers();
    Pipeline pipeline = Pipeline.create(options);
    ModelSinks named = ModelSinks.of(declared);
    String source = declared.source().topic().get();
    List<Integer> sourcePartitions = new java.util.ArrayList<>();
    java.util.Map<String, Long> heldBefore = null; // records in the output topics, if known
    try (KafkaTopics topics = KafkaTopics.at(connection)) {
      if (shadow && !topics.names().contains(source)) {
        err.println(
            "streamform run: the source topic "
                + source
                + " does not exist on "
                + bootstrapServers
                + ": a shadow run recomputes what the topic retains, and there is nothing");
        return 1;
      }
      List<String> needed = shadow ? List.of() : named.topics(source);
      // asked first: a broker that does not answer fails the run here, once its timeout has
      // passed, not after the courtesy below waited out the same timeout in silence
      boolean sourceExists = topics.names().contains(source);
      if (!shadow && savepoint == null) {
        // what the outputs hold before this run adds to them: a courtesy, so a refusal is no error
        try {
          heldBefore = topics.records(needed.subList(1, needed.size()));
        } catch (RuntimeException e) {
          heldBefore = null;
        }
      }
      Set<String> compacted = named.topicIsCompacted() ? Set.of(named.topic()) : Set.of();
      // an existing source topic is held to the declared count before any topic is created, so a
      // refused run leaves nothing behind; a missing one is created with that count
      int topicPartitions = sourceExists ? topics.partitions(source) : 0;
      Optional<Integer> expected = declared.source().partitions();
      if (!sourceExists || expected.isEmpty() || topicPartitions == expected.get()) {
        int create = expected.orElse(partitions);
        List<String> made = topics.ensure(needed, create, compacted);
        for (String created : made) {
          err.println(
              "streamform run: created topic "
                  + created
                  + " ("
                  + Counts.grouped(create, "partition")
                  + ")");
        }
        if (expected.isEmpty()
            && spec.commandLine().getParseResult().hasMatchedOption("--partitions")) {
          partitionsNote(partitions, source, sourceExists ? topicPartitions : -1, made)
              .ifPresent(err::println);
        }
        if (!sourceExists) {
          topicPartitions = topics.partitions(source);
        }
      }
      if (expected.isPresent() && topicPartitions != expected.get()) {
        err.println(
            "streamform run: "
                + project.resolve("sources.yml")
                + ": source '"
                + declared.source().name()
                + "' declares partitions: "
                + expected.get()
                + " but topic "
                + source
                + " has "
                + topicPartitions
                + "; a partition count is part of the watermark topology: declare the topic's count"
                + " and a new generation (streamform plan shows the change), or use the topic the"
                + " declaration names");
        return 1;
      }
      if (expected.isEmpty() && revisionLedger != null) {
        // undeclared, the topic's count is the generation's all the same (docs/decisions/0054)
        Optional<String> refused =
            recordPartitions(
                revisionLedger,
                declared.source().name(),
                runGeneration,
                topicPartitions,
                "topic "
                    + source
                    + " of source '"
                    + declared.source().name()
                    + "' ("
                    + project.resolve("sources.yml")
                    + ") has "
                    + topicPartitions
                    + " partitions",
                false);
        if (refused.isPresent()) {
          err.println(refused.get());
          return 1;
        }
      }
      // every model's clock holds every partition of the topic from the start: no window closes
      // and no key expires before each partition has delivered (issue 16)
      for (int p = 0; p < topicPartitions; p++) {
        sourcePartitions.add(p);
      }
    }
    ModelSinks sinks =
        shadow
            ? KafkaModelPipeline.buildShadow(
                pipeline, declared, connection, revisionSink, sourcePartitions)
            : KafkaModelPipeline.build(
                pipeline, declared, connection, revisionSink, decisionLedger, sourcePartitions);
    if (shadow) {
      err.println(
          "streamform run: model "
              + model
              + " generation "
              + runGeneration
              + " (shadow) on "
              + runner.describe()
              + ": "
              + source
              + " from its earliest retained offsets -> "
              + revisionSink.target().describe());
      // the job does not end: what became of the live run's too-late events is asked later
      err.println(
          "streamform run: the live run's too-late events (topic "
              + named.lateTopic()
              + ") are replayed in their place in "
              + source
              + "; once generation "
              + runGeneration
              + " has caught up, streamform compare-generations --to "
              + runGeneration
              + " --bootstrap-servers "
              + bootstrapServers
              + " prints how many of them its revisions include");
    } else {
      err.println(
          "streamform run: model "
              + model
              + " on "
              + runner.describe()
              + ": "
              + source
              + " -> "
              + sinks.topic()
              + declared.kind().outputNote()
              + (revisionSink == null ? "" : ", revisions -> " + revisionSink.target().describe())
              + (decisionLedger == null
                  ? ""
                  : ", decisions -> " + decisionLedger.target().describe())
              + (revisionSink == null || revisionSink.effects().isEmpty()
                  ? ""
                  : " (with "
                      + Counts.grouped(revisionSink.effects().size(), "effect rule")
                      + "; deliver with streamform dispatch)")
              + ", late -> "
              + sinks.lateTopic()
              + sinks.reconcileTopic().map(t -> ", reconcile -> " + t).orElse("")
              + ", "
              + declared.kind().quarantineName()
              + " -> "
              + sinks.quarantineTopic()
              + sinks.duplicatesTopic().map(t -> ", duplicates -> " + t).orElse(""));
      if (otherVersionsNote != null) {
        err.println("streamform run: " + otherVersionsNote);
      }
      if (savepoint == null) {
        err.println(readingLine(source, heldBefore));
      }
      logOrderLine(declared, KafkaModelPipeline.appliesOnArrival(options), runner.describe())
          .ifPresent(err::println);
    }
    checkpointingNote(
            runner.flinkCluster().orElse(null),
            options.as(FlinkPipelineOptions.class).getCheckpointingInterval(),
            source)
        .ifPresent(err::println);
    if (!connection.isPlaintext()) {
      err.println("streamform run: Kafka client settings: " + connection);
    }
    // the plan this job runs, recorded once it is submitted (a detached run's id comes back from
    // the submission, an attached run's is found on its cluster): its savepoints are checked
    // against it
    String cluster = runner.flinkCluster().orElse(null);
    String submittedPlan = null;
    if ((detach || cluster != null) && !generationOverridden) {
      try {
        // the plan inspect-plan prints, so that plan --against compares like with like
        submittedPlan = dev.streamform.pipelines.ModelSteps.manifest(loaded, model).toJson();
      } catch (RuntimeException e) {
        err.println(
            "streamform run: note: the plan of this job is not recorded ("
                + ModelLedger.firstLine(e)
                + "): a restore from its savepoints is checked only with --against");
      }
    }
    err.flush();
    PipelineResult result;
    PipelineResult.State state = null;
    DeclaredModel interruptedModel = declared;
    RevisionSink interruptedSink = revisionSink;
    // an attached run on a cluster blocks until its job ends: its id is found on the cluster
    String recordedPlan = submittedPlan;
    ClusterJobWatch watch =
        detach || cluster == null
            ? null
            : ClusterJobWatch.start(
                cluster,
                options.as(FlinkPipelineOptions.class).getJobName(),
                java.time.Duration.ofMinutes(5),
                id -> {
                  err.println(submittedLine(cluster, id));
                  if (recordedPlan != null) {
                    recordPlan(project, model, id, recordedPlan, err);
                  }
                  err.flush();
                });
    // a database outage on a runner in this process is said when it begins and ends, as for files
    AutoCloseable told =
        cluster == null && (revisionSink != null || decisionLedger != null)
            ? DatabaseRetry.listen(new OutageNotice(err))
            : () -> {};
    try (ClusterJobWatch watching = watch;
        RunInterrupt ctrlC =
            detach
                ? null
                : RunInterrupt.install(
                    err,
                    () ->
                        kafkaRunInterrupted(
                                cluster,
                                watch == null ? null : watch.jobId().orElse(null),
                                source,
                                sinks.topic(),
                                savepoint == null,
                                bootstrapServers)
                            + refusedSoFar(interruptedModel, interruptedSink, cluster != null))) {
      result = pipeline.run();
      if (!detach) {
        state = result.waitUntilFinish();
      }
    } catch (RuntimeException e) {
      if (!runner.isFlink()) {
        if (!(e instanceof Pipeline.PipelineExecutionException) || OutOfMemory.find(e) != null) {
          throw e; // not the job's failure: said where every command's are
        }
        // the DirectRunner's job failed (a database that stayed away, a broker that refused):
        // what lies beneath, in one line, as a file run says it
        err.println(
            "streamform run: the job failed on "
                + runner.describe()
                + ": "
                + gaveUpOr(
                    e,
                    failedLine(
                        e, endpoints(runner, bootstrapServers, revisionSink, decisionLedger)))
                + " (STREAMFORM_DEBUG=1 prints the stack trace)");
        if (System.getenv("STREAMFORM_DEBUG") != null) {
          e.printStackTrace(err);
        }
        return 1;
      }
      if (!detach && cancelled(e)) {
        // cancelled on the cluster (its dashboard, the REST API): the job ended, as it was told to
        err.println(
            "streamform run: the job ended: CANCELLED (cancelled on "
                + runner.describe()
                + ", not by this command)");
        return 0;
      }
      // Beam's Flink runner says only "Pipeline execution failed": name what lies beneath
      err.println(
          "streamform run: "
              + (detach ? "the job did not start on " : "the job failed on ")
              + runner.describe()
              + ": "
              + RefusedConnection.withHint(
                  JobFailure.causes(e),
                  e,
                  endpoints(runner, bootstrapServers, revisionSink, decisionLedger))
              + " (STREAMFORM_DEBUG=1 prints the stack trace"
              + (detach ? "; the cluster's own account is in its JobManager's log)" : ")"));
      if (System.getenv("STREAMFORM_DEBUG") != null) {
        e.printStackTrace(err);
      }
      return 1;
    } finally {
      try {
        told.close();
      } catch (Exception e) {
        // only removes a listener
      }
    }
    if (detach) {
      String id = jobId(result);
      out.println(id);
      out.flush();
      if (submittedPlan != null) {
        recordPlan(project, model, id, submittedPlan, err);
      }
      return cluster == null || id.startsWith("submitted")
          ? 0
          : detachedJob(ClusterJobWatch.settle(cluster, id, DETACHED_PATIENCE), id, cluster, err);
    }
    err.println("streamform run: the job ended: " + state);
    if (state != PipelineResult.State.DONE && state != PipelineResult.State.CANCELLED) {
      return 1;
    }
    if (revisionSink != null
        && conflicts(revisionConflicts(result), declared, revisionSink, err, err)) {
      return 1;
    }
    return 0;
  }

  /**
   * What a Kafka job on a Flink {@code cluster} that takes no checkpoints ({@code interval} null or
   * not positive) cannot do (ADR 0200); empty on a runner in this process or with checkpoints. Beam
   * keeps a job's sources running only while it checkpoints, and Flink refuses a savepoint of a job
   * one of whose sources has finished.
   */
  static Optional<String> checkpointingNote(String cluster, Long interval, String source) {
    if (cluster == null || (interval != null && interval > 0)) {
      return Optional.empty();
    }
    return Optional.of(
        "streamform run: note: this job takes no checkpoints on the Flink cluster at "
            + cluster
            + " (no positive --checkpointing-interval, given or in a profile): it cannot be stopped"
            + " with a savepoint (Flink answers 'Not all required tasks are currently running'),"
            + " and if it fails there is no checkpoint to restart from, so "
            + source
            + " is read from its earliest offsets again; give --checkpointing-interval 10000 (or"
            + " --profile flink-cluster, which sets it)");
  }

  /**
   * Where a run without {@code --from-savepoint} starts reading its Kafka source, and what that
   * means for its output topics: the earliest offsets, so what earlier runs published is published
   * again ({@code held}: the records each output topic holds, null when the broker would not say;
   * docs/decisions/0142).
   */
  static String readingLine(String source, java.util.Map<String, Long> held) {
    String reading =
        "streamform run: reading " + source + " from its earliest offsets (no savepoint)";
    String again =
        "what earlier runs published is published again (a Flink job restored with"
            + " --from-savepoint continues instead: docs/guides/kafka.md)";
    if (held == null) {
      return reading + ": if earlier runs wrote to its output topics, " + again;
    }
    List<String> holding =
        held.entrySet().stream()
            .filter(e -> e.getValue() > 0)
            .map(e -> e.getKey() + " " + Counts.grouped(e.getValue(), "record"))
            .toList();
    if (holding.isEmpty()) {
      return reading + "; its output topics hold no records yet";
    }
    return reading
        + ": "
        + again
        + "; the output topics already hold "
        + String.join(", ", holding);
  }

  /**
   * For an upsert model that applies its events in log order on this run (the DirectRunner, or
   * {@code event_id} with source-wide ids on any runner), that a partition's last records wait for
   * every partition's watermark, and what releases them (docs/decisions/0143); for a windowed model
   * on the DirectRunner, the same of a correction of a window that has its revision; empty
   * otherwise.
   */
  static Optional<String> logOrderLine(
      DeclaredModel declared, boolean runnerAppliesOnArrival, String runner) {
    if (declared.kind().hasDecisionLedger()) {
      return Optional.empty(); // decisions wait for the watermark by definition
    }
    boolean windowed = declared.kind().hasRevisionLedger();
    var source = declared.source();
    boolean sourceWideIds =
        source.eventId().isPresent()
            && source.eventIdScope()
                != dev.streamform.policies.declarations.SourceDeclaration.EventIdScope.KEY;
    // a window's revisions wait for its end by definition; a correction of a window that has its
    // revision waits for the watermark in log order only (WindowedAggregate.appliedOnArrival), and
    // on arrival one that came before its window's revision 1 (docs/decisions/0189)
    boolean onArrival = runnerAppliesOnArrival && !sourceWideIds;
    if (onArrival && !windowed) {
      return Optional.empty();
    }
    String why =
        runnerAppliesOnArrival
            ? "its source's event_id is unique source-wide, not per key"
            : "on " + runner;
    String release =
        source
            .idleAfter()
            .map(
                d ->
                    "until it has been silent for idle_after ("
                        + dev.streamform.core.time.Durations.format(d)
                        + ") or records or punctuations move its watermark")
            .orElse(
                "until records or punctuations move its watermark (no idle_after is declared,"
                    + " which would release it after a silence)");
    if (windowed && onArrival) {
      return Optional.of(
          "streamform run: "
              + declared.model().name()
              + " applies events as they arrive (on "
              + runner
              + "), except a correction that arrives before its window's revision 1 (its own"
              + " partition's watermark is past the window's end, another partition's is not"
              + " yet): it follows revision 1 once every partition's watermark has passed the one"
              + " it arrived at, so one that is its partition's last record waits; a silent"
              + " partition holds it back "
              + release);
    }
    if (windowed) {
      return Optional.of(
          "streamform run: "
              + declared.model().name()
              + " applies events in log order ("
              + why
              + "): a correction of a window that has its revision is applied only once every"
              + " partition's watermark has passed it, so a correction that is its partition's"
              + " last record waits; a silent partition holds it back "
              + release);
    }
    return Optional.of(
        "streamform run: "
            + declared.model().name()
            + " applies events in log order ("
            + why
            + "): a partition's last records are applied only once every partition's watermark"
            + " has passed them; a silent partition holds them back "
            + release);
  }

  /**
   * The restore of {@link #savepoint} checked against the plan that wrote it (docs/decisions/0121):
   * that of {@link #against}, else the record of the job whose id the savepoint's folder names
   * ({@link SubmittedPlans}). 0 when the restore may go on: the plans differ in nothing {@code
   * plan} refuses, or the plan that wrote it is unknown (said on {@code err}, with how to check
   * it); 2 when {@code plan} would exit 2 on the change, or the generation changed (a new
   * generation starts from the log), with plan's own reasons and the fix; 1 when the manifest
   * cannot be read.
   */
  private int checkRestore(Project loaded, boolean generationOverridden, PrintWriter err) {
    String how =
        "; check it with --against <the manifest saved when it was deployed> (streamform plan "
            + ShellWords.quote(project)
            + " "
            + ShellWords.quote(model)
            + " --against <file> prints the same comparison)";
    String unchecked =
        "streamform run: note: the restore from "
            + savepoint
            + " could not be checked against the plan that wrote it: ";
    if (generationOverridden) {
      err.println(
          unchecked
              + "--generation "
              + generation
              + " overrides the declared generation, and plans compare declarations"
              + how);
      return 0;
    }
    Path manifest;
    String writer;
    if (against != null) {
      manifest = against;
      writer = "the plan of " + against + " (--against), which";
    } else {
      SubmittedPlans.Lookup found = SubmittedPlans.find(project, savepoint);
      if (found instanceof SubmittedPlans.Lookup.NotNamed n) {
        err.println(
            unchecked
                + "its folder "
                + n.folder()
                + " is not named as Flink names a savepoint's (savepoint-<the job id's first 6"
                + " characters>-…), so the job that wrote it is unknown"
                + how);
        return 0;
      }
      SubmittedPlans.Lookup.Named named = (SubmittedPlans.Lookup.Named) found;
      Path records = project.resolve(SubmittedPlans.FOLDER);
      if (named.records().isEmpty()) {
        err.println(
            unchecked
                + "no job whose id starts with "
                + named.prefix()
                + " was submitted from "
                + records
                + " (a job submitted from another checkout, or by a streamform that recorded no"
                + " plans)"
                + how);
        return 0;
      }
      if (named.records().size() > 1) {
        err.println(
            unchecked
                + named.records().size()
                + " jobs submitted from "
                + records
                + " have ids that start with "
                + named.prefix()
                + " ("
                + String.join(", ", named.records().stream().map(Path::toString).toList())
                + ")"
                + how.replace("<the manifest saved when it was deployed>", "<the one of them>"));
        return 0;
      }
      manifest = named.records().get(0);
      String file = manifest.getFileName().toString();
      writer =
          "job "
              + file.substring(0, file.length() - ".json".length())
              + ", whose plan ("
              + manifest
              + ")";
    }
    Optional<JsonNode> running = PlanCommand.readManifest(manifest, model, "run", err);
    if (running.isEmpty()) {
      return 1;
    }
    PlanDiff diff = PlanDiff.between(running.get(), PlanManifest.of(loaded, model).toTree());
    boolean newGeneration = diff.newGeneration() != diff.runningGeneration();
    if (diff.exitCode() == 0 && !newGeneration) {
      return 0;
    }
    err.println(
        "streamform run: the savepoint "
            + savepoint
            + " was written by "
            + writer
            + " this one cannot restore into:");
    String runningModel = running.get().path("model").asText("");
    if (!runningModel.equals(model)) {
      err.println(
          "    (it is the plan of model '" + runningModel + "', restored into '" + model + "')");
    }
    PlanCommand.print(diff, project, model, PlanCommand.withoutShadow(loaded, model), err);
    if (diff.exitCode() == 0) {
      // safe to deploy as a new generation, which is deployed beside the running one (ADR 0103)
      err.println(
          "generation "
              + diff.runningGeneration()
              + " -> "
              + diff.newGeneration()
              + ": a new generation starts from the log, not from a savepoint of generation "
              + diff.runningGeneration());
    }
    err.println(
        "streamform run: revert the change to restore from the savepoint, or deploy it as a new"
            + " generation started from the log, without --from-savepoint (streamform plan "
            + ShellWords.quote(project)
            + " "
            + ShellWords.quote(model)
            + " --against "
            + ShellWords.quote(manifest)
            + " prints the same comparison)");
    err.flush();
    return 2;
  }

  /**
   * A model on its file source: reads the files to their end, writes the outputs to {@code
   * --output} (or the model's topics with {@code --bootstrap-servers}) and prints the counts.
   */
  private int runOnFiles(
      Project loaded,
      DeclaredModel declared,
      RunnerChoice runner,
      PipelineOptions options,
      RevisionSink revisionSink,
      DecisionLedgerSink decisionLedger,
      PrintWriter out,
      PrintWriter err) {
    if (detach || savepoint != null) {
      throw new ParameterException(
          spec.commandLine(),
          (detach ? "--detach" : "--from-savepoint")
              + ": model '"
              + model
              + "' reads a file source, which runs to its end in this process");
    }
    boolean toKafka = kafka.bootstrapServers != null || kafka.propertiesFile != null;
    if (output != null && toKafka) {
      throw new ParameterException(
          spec.commandLine(), "give --output (files) or --bootstrap-servers (topics), not both");
    }
    if (!toKafka && spec.commandLine().getParseResult().hasMatchedOption("--partitions")) {
      // refused, not ignored, like a Flink option on the DirectRunner (docs/decisions/0087)
      throw new ParameterException(
          spec.commandLine(),
          "--partitions "
              + partitions
              + " sizes the topics a run creates, and this run writes files: give"
              + " --bootstrap-servers to write topics, or leave out --partitions");
    }
    // a path: that matches no file, at its line of sources.yml as check warns of it (ADR 0119)
    String subject = "source '" + declared.source().name() + "'";
    Optional<Problem> missing =
        loaded.missingFiles().stream()
            .filter(p -> p.subject().equals(Optional.of(subject)))
            .findFirst();
    if (missing.isPresent()) {
      Problem p = missing.get();
      err.println(
          "streamform run: "
              + Problem.of(
                  p.file(),
                  p.line(),
                  p.subject(),
                  p.key(),
                  declared.source().path().orElse("") + " matches no file under " + project,
                  Optional.of(
                      "create it, or give a file of JSON lines (or a glob such as"
                          + " orders/*.jsonl) relative to the project folder")));
      return 1;
    }
    // the live run's outputs: a shadow run reads its late output, never writes any (ADR 0048)
    Path liveOutputs = output != null ? output : project.resolve("target").resolve(model);
    FileModelRun run;
    try {
      run = FileModelRun.of(declared, project, liveOutputs);
    } catch (IllegalArgumentException e) {
      err.println("streamform run: " + e.getMessage());
      return 1;
    }
    if (runner.isFlink()) {
      // the files end: without this the Flink runner keeps finished sources alive to checkpoint
      // them
      options.as(FlinkPipelineOptions.class).setShutdownSourcesAfterIdleMs(0L);
    }
    FileModelRun.Target target;
    String where;
    String bootstrap = null; // the broker this run writes to, if any
    OutputFolder held = null; // the output folder, taken for this run
    if (shadow) {
      if (toKafka) {
        throw new ParameterException(
            spec.commandLine(),
            "--shadow: a shadow run writes only its revisions to the database, never the model's"
                + " topics; leave out --bootstrap-servers");
      }
      // its late output is read after the job: a mixed set is refused before it (ADR 0101)
      Optional<String> incomplete = OutputFolder.incomplete(liveOutputs);
      if (incomplete.isPresent()) {
        err.println("streamform run: " + incomplete.get());
        return 1;
      }
      target = FileModelRun.Target.none();
      where = "no output file (shadow: the live run's outputs in " + liveOutputs + " stay)";
    } else if (toKafka) {
      Optional<KafkaConnection> connected =
          kafka.connection(runnerOptions.kafkaProperties(), project, null, err);
      if (connected.isEmpty()) {
        return 1;
      }
      KafkaConnection connection = connected.get();
      ModelSinks named = ModelSinks.of(declared);
      try (KafkaTopics topics = KafkaTopics.at(connection)) {
        List<String> needed = named.topics(null);
        Set<String> compacted = named.topicIsCompacted() ? Set.of(named.topic()) : Set.of();
        for (String created : topics.ensure(needed, partitions, compacted)) {
          err.println(
              "streamform run: created topic "
                  + created
                  + " ("
                  + Counts.grouped(partitions, "partition")
                  + ")");
        }
      }
      target = FileModelRun.Target.kafka(connection);
      bootstrap = connection.bootstrapServers();
      where =
          "topics "
              + String.join(", ", named.topics(null))
              + " at "
              + connection.bootstrapServers();
    } else {
      Optional<String> unusable = unusableFolder(liveOutputs);
      if (unusable.isPresent()) {
        if (output != null) {
          throw new ParameterException(spec.commandLine(), "--output " + unusable.get());
        }
        err.println("streamform run: the output folder " + unusable.get());
        return 1;
      }
      Optional<Path> inTheWay =
          run.outputFiles(liveOutputs).stream().filter(Files::isDirectory).findFirst();
      if (inTheWay.isPresent()) {
        String why =
            liveOutputs
                + " holds a folder "
                + inTheWay.get().getFileName()
                + " where the run writes a file: remove or rename that folder, or name another"
                + " folder";
        if (output != null) {
          throw new ParameterException(spec.commandLine(), "--output " + why);
        }
        err.println("streamform run: the output folder " + why);
        return 1;
      }
      // an output file that is an input file would replace the run's own data with its output
      Optional<java.util.Map.Entry<Path, Path>> overInput = run.outputOverInput(liveOutputs);
      if (overInput.isPresent()) {
        String why =
            liveOutputs
                + " would replace the run's input file "
                + overInput.get().getValue()
                + " with its output "
                + overInput.get().getKey().getFileName()
                + ": name another --output folder";
        if (output != null) {
          throw new ParameterException(spec.commandLine(), "--output " + why);
        }
        err.println("streamform run: the output folder " + why);
        return 1;
      }
      // one run at a time: taken before the job, which also proves the folder can be written
      // (docs/decisions/0101)
      try {
        held = OutputFolder.lock(liveOutputs);
      } catch (OutputFolder.Busy e) {
        err.println("streamform run: " + e.getMessage());
        return 1;
      } catch (IOException e) {
        String line = dev.streamform.policies.project.FileErrors.line(e);
        String why =
            liveOutputs
                + " cannot be written: "
                + (line != null ? line : why(e))
                + ": name another folder, or make it writable";
        if (output != null) {
          throw new ParameterException(spec.commandLine(), "--output " + why);
        }
        err.println("streamform run: the output folder " + why);
        return 1;
      }
      for (String parts : held.removedParts()) {
        err.println(
            "streamform run: removed "
                + liveOutputs.resolve(parts)
                + ", the temporary folder of a run that ended without removing it");
      }
      target = FileModelRun.Target.folder(held);
      where = liveOutputs.toString();
    }
    try {
      return runFileJob(
          declared,
          runner,
          options,
          revisionSink,
          decisionLedger,
          out,
          err,
          run,
          target,
          where,
          bootstrap,
          liveOutputs);
    } finally {
      if (held != null) {
        try {
          held.close();
        } catch (IOException e) {
          // the process's end releases it all the same
        }
      }
    }
  }

  /** The job on files, once its target is settled (and a folder taken). */
  private int runFileJob(
      DeclaredModel declared,
      RunnerChoice runner,
      PipelineOptions options,
      RevisionSink revisionSink,
      DecisionLedgerSink decisionLedger,
      PrintWriter out,
      PrintWriter err,
      FileModelRun run,
      FileModelRun.Target target,
      String where,
      String bootstrap,
      Path liveOutputs) {
    err.println(
        "streamform run: model "
            + model
            + " on "
            + runner.describe()
            + ": "
            + run.fileNames().size()
            + (run.fileNames().size() == 1 ? " file (" : " files (")
            + String.join(", ", run.fileNames())
            + ") -> "
            + where
            + (revisionSink == null ? "" : ", revisions -> " + revisionSink.target().describe())
            + (decisionLedger == null
                ? ""
                : ", decisions -> " + decisionLedger.target().describe()));
    leftOutLines(declared.source().path().orElse(""), run, liveOutputs).forEach(err::println);
    largeInputLine(runner, run.files()).ifPresent(err::println);
    err.flush();
    FileModelRun.Summary summary;
    long readBefore = dev.streamform.pipelines.file.FileSource.linesReadInThisJvm();
    boolean inThisProcess = runner.flinkCluster().isEmpty();
    try (AutoCloseable told = DatabaseRetry.listen(new OutageNotice(err));
        RunInterrupt ctrlC =
            RunInterrupt.install(
                err,
                () ->
                    fileRunInterrupted(
                            inThisProcess
                                ? dev.streamform.pipelines.file.FileSource.linesReadInThisJvm()
                                    - readBefore
                                : -1,
                            shadow ? null : bootstrap,
                            shadow || bootstrap != null ? null : liveOutputs,
                            revisionSink,
                            decisionLedger)
                        + refusedSoFar(declared, revisionSink, !inThisProcess));
        // on a cluster the counting is done in its workers: no lines here
        AutoCloseable processing = inThisProcess ? ProcessingProgress.start(err, run) : () -> {}) {
      summary = run.run(options, target, revisionSink, decisionLedger, PROGRESS_EVERY);
    } catch (OutOfMemoryError e) {
      // the job's own, rethrown here (a worker's is said by the handler Streamform installs)
      err.flush();
      OutOfMemory.halt(null, e);
      return OutOfMemory.STATUS;
    } catch (Exception e) {
      // a failure of the runner in this process caused by it (an embedded Flink task's); a
      // cluster's own is said as its job's failure (JobFailure)
      OutOfMemoryError oom = inThisProcess ? OutOfMemory.find(e) : null;
      if (oom != null) {
        err.flush();
        OutOfMemory.halt(null, oom);
      }
      err.println(
          "streamform run: the run failed: "
              + gaveUpOr(
                  e,
                  atLines(
                      failedLine(e, endpoints(runner, bootstrap, revisionSink, decisionLedger)),
                      run.fileNames())));
      return 1;
    }
    out.println(readLine(summary));
    if (summary.rowsTooLargeForKafka > 0) {
      // rows the topics did not receive: said, as the counts are (ADR 0199)
      out.println(
          Counts.grouped(summary.rowsTooLargeForKafka, "output row")
              + " too large for Kafka's max.request.size went to "
              + ModelSinks.of(declared).quarantineTopic()
              + " in their place (their reason says which)");
    }
    summary.written.forEach(
        (file, rows) -> out.println("wrote " + file + " (" + Counts.grouped(rows, "row") + ")"));
    if (!summary.removed.isEmpty()) {
      // the folder holds this run's set only (ADR 0219)
      out.println(
          "removed "
              + summary.removed.stream()
                  .map(Path::toString)
                  .collect(java.util.stream.Collectors.joining(", "))
              + ": an earlier run's output, which this run does not write");
    }
    if (revisionSink != null) {
      out.println(
          "wrote "
              + Counts.grouped(summary.databaseRevisions, "new revision")
              + " to "
              + revisionSink.target().describe());
    }
    if (decisionLedger != null) {
      out.println(
          "wrote "
              + Counts.grouped(summary.databaseDecisions, "new decision")
              + " to "
              + decisionLedger.target().describe());
      if (otherVersionsNote != null) {
        out.println(otherVersionsNote);
      }
    }
    boolean decisionConflicts = decisionLedger != null && summary.decisionConflicts > 0;
    if (decisionConflicts) {
      err.println(
          decisionConflictsLine(summary.decisionConflicts, project, declared.model().name()));
    }
    boolean conflicts =
        (revisionSink != null && conflicts(0, declared, revisionSink, out, err))
            || decisionConflicts;
    if (shadow) {
      try {
        recomputedLateEvents(declared, revisionSink, liveOutputs, out);
      } catch (IOException | SQLException | RuntimeException e) {
        err.println(
            "streamform run: cannot check the live run's too-late events: "
                + ModelLedger.firstLine(e));
        return 1;
      }
    }
    out.flush();
    if (!summary.addsUp()) {
      err.println(
          "streamform run: the counts do not add up to the lines read (a bug: please report"
              + " it with the input)");
      return 1;
    }
    return conflicts ? 1 : 0;
  }

  /**
   * The start lines naming what a glob {@code path} matched and the run does not read (ADR 0217):
   * files under the output folder {@code outputs} or a {@code .parts-*} working folder, and files
   * that are a file read already (a link).
   */
  static List<String> leftOutLines(String path, FileModelRun run, Path outputs) {
    List<String> lines = new ArrayList<>();
    if (!run.leftOutOutputs().isEmpty()) {
      Path folder = outputs.toAbsolutePath().normalize();
      long under = run.leftOutOutputs().stream().filter(f -> f.startsWith(folder)).count();
      long parts = run.leftOutOutputs().size() - under;
      lines.add(
          "streamform run: left out "
              + (under > 0
                  ? Counts.grouped(under, "file") + " under the output folder " + outputs
                  : "")
              + (under > 0 && parts > 0 ? " and " : "")
              + (parts > 0 ? Counts.grouped(parts, "file") + " in .parts-* working folders" : "")
              + " that path: "
              + path
              + " matches: a run's outputs are not its input");
    }
    if (!run.sameFiles().isEmpty()) {
      List<String> named = new ArrayList<>();
      run.sameFiles().forEach((link, read) -> named.add(link + " (the same file as " + read + ")"));
      lines.add(
          "streamform run: left out "
              + String.join(", ", named)
              + " that path: "
              + path
              + " matches: each file is read once");
    }
    return lines;
  }

  /**
   * Said when the decision ledger refused {@code n} of this run's decisions because it holds their
   * {@code decision_id} with another outcome (ADR 0209).
   */
  static String decisionConflictsLine(long n, Path project, String model) {
    return "streamform run: the decision ledger refused "
        + Counts.grouped(n, "decision")
        + " of this run: it holds "
        + (n == 1 ? "its decision_id" : "their decision_ids")
        + " with other features or another score and keeps what it holds, so the output files"
        + " and the ledger disagree there. A declaration outside a decision's identity changed"
        + " under the same generation (features_over, for one): declare it as it was, or set a"
        + " new generation on model "
        + model
        + " (streamform plan shows what changed); streamform decisions verify "
        + project
        + " --model "
        + model
        + " lists them";
  }

  /**
   * Files larger than this in all (about 10,000 lines of 100 bytes) are a large input for the
   * DirectRunner, which holds a file's records in memory and applies them one by one.
   */
  static final long LARGE_INPUT_BYTES = 1024 * 1024;

  /**
   * On the DirectRunner, for {@code files} of more than {@link #LARGE_INPUT_BYTES} in all: that it
   * is meant for small inputs and fixtures, and that Flink runs volume (docs/decisions/0153).
   */
  static Optional<String> largeInputLine(RunnerChoice runner, List<Path> files) {
    if (runner.isFlink()) {
      return Optional.empty();
    }
    long bytes = 0;
    for (Path f : files) {
      try {
        bytes += Files.size(f);
      } catch (IOException e) {
        // the job says what is wrong with it
      }
    }
    if (bytes <= LARGE_INPUT_BYTES) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            java.util.Locale.ROOT,
            "streamform run: %.1f MB of input on the DirectRunner, which is meant for small inputs"
                + " and fixtures (it holds the records in memory and applies them one at a time):"
                + " for volume, run it with --runner flink (see docs/guides/files.md)",
            bytes / 1e6));
  }

  /**
   * What an interrupted file run says after "interrupted (SIGINT)": the lines it had read ({@code
   * read}, -1 when unknown here), and what became of its outputs — in the folder {@code dir} the
   * previous run's outputs stay as they were (the job writes its parts in a {@code .parts-*}
   * folder, which the next run removes; docs/decisions/0101), unless the run was stopped while
   * moving its files into place; records published to the broker at {@code bootstrap} stay there.
   */
  static String fileRunInterrupted(
      long read,
      String bootstrap,
      Path dir,
      RevisionSink revisionSink,
      DecisionLedgerSink decisionLedger) {
    List<String> said = new java.util.ArrayList<>();
    if (read >= 0) {
      said.add(Counts.grouped(read, "line") + " read");
    }
    if (dir != null) {
      Optional<String> incomplete = OutputFolder.incomplete(dir);
      said.add(
          incomplete.isPresent()
              ? "it was stopped while moving its files into place, so " + incomplete.get()
              : "nothing was written to "
                  + dir
                  + ": the previous outputs there were left as they were (the next run removes"
                  + " this run's .parts folder)");
    }
    if (bootstrap != null) {
      said.add("what it published to the topics at " + bootstrap + " stays there");
    }
    if (revisionSink != null) {
      said.add("the revisions it wrote to " + revisionSink.target().describe() + " stay");
    }
    if (decisionLedger != null) {
      said.add("the decisions it wrote to " + decisionLedger.target().describe() + " stay");
    }
    return String.join("; ", said);
  }

  /**
   * What a {@code --partitions N} given for a source that declares no count did, when it did not
   * size every topic the run reads and writes: nothing when every topic existed, only the topics it
   * created when the source topic existed with another count ({@code sourcePartitions}, -1 when the
   * run created it). Empty when N sized them all, or the counts agree.
   */
  static Optional<String> partitionsNote(
      int partitions, String source, int sourcePartitions, List<String> created) {
    if (sourcePartitions < 0 || sourcePartitions == partitions) {
      return Optional.empty();
    }
    return Optional.of(
        "streamform run: note: --partitions "
            + partitions
            + (created.isEmpty()
                ? " created no topic: every topic of the run exists"
                : " sized only the topics this run created (" + String.join(", ", created) + ")")
            + ", and the source topic "
            + source
            + " has "
            + Counts.grouped(sourcePartitions, "partition")
            + ", read as it is (a topic's partition count is changed with Kafka's own tools;"
            + " declare partitions: on the source to have run hold it)");
  }

  /** Whether an attached run's job ended because it was cancelled on its cluster. */
  static boolean cancelled(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.apache.flink.runtime.client.JobCancellationException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Said once an attached run's job is found on its cluster ({@link ClusterJobWatch}): its id, and
   * how to stop it there, as this command does not cancel it.
   */
  static String submittedLine(String cluster, String jobId) {
    return "streamform run: job "
        + jobId
        + " runs on the Flink cluster at "
        + cluster
        + "; this command waits for it to end and does not cancel it: stop it there ("
        + stopCommands(cluster, jobId)
        + ")";
  }

  /**
   * Records {@code plan} as what job {@code jobId} of {@code model} runs ({@link SubmittedPlans},
   * ADR 0121), or says on {@code err} why it could not: the job runs all the same.
   */
  static void recordPlan(Path project, String model, String jobId, String plan, PrintWriter err) {
    SubmittedPlans.write(project, model, jobId, plan)
        .ifPresent(
            why ->
                err.println(
                    "streamform run: note: the plan of job "
                        + jobId
                        + " is not recorded ("
                        + why
                        + "): a restore from its savepoints is checked only with --against"));
  }

  private static String stopCommands(String cluster, String jobId) {
    String base = ClusterJobWatch.restBase(cluster);
    return "curl -X PATCH '"
        + base
        + "/jobs/"
        + jobId
        + "?mode=cancel'; to stop it with a savepoint, docs/guides/kafka.md";
  }

  /**
   * What an interrupted Kafka run says after "interrupted (SIGTERM)": on a runner in this process
   * the job stopped, and what it published stays in its topics; a job on a Flink {@code cluster} is
   * not cancelled by the command's end. A run without a savepoint ({@code fromEarliest}) that runs
   * again reads its source from the earliest offsets again.
   */
  static String kafkaRunInterrupted(
      String cluster,
      String jobId,
      String source,
      String topic,
      boolean fromEarliest,
      String bootstrap) {
    return (cluster == null
            ? "the job stopped; what it published to "
                + topic
                + " and its other topics at "
                + bootstrap
                + " stays there"
            : jobId == null
                ? "the job submitted to the Flink cluster at "
                    + cluster
                    + " is not cancelled by this: stop it there (its dashboard, or the REST API)"
                : "job "
                    + jobId
                    + " on the Flink cluster at "
                    + cluster
                    + " is not cancelled by this: stop it there ("
                    + stopCommands(cluster, jobId)
                    + ")")
        + (fromEarliest
            ? "; a run without --from-savepoint reads "
                + source
                + " from its earliest offsets again and publishes it all again"
            : "");
  }

  /**
   * For the line of an interrupted run with a revision sink: the revisions the sink refused as
   * conflicts so far in this run (the rows of {@code revision_conflict} it recorded, as {@link
   * #conflicts} counts them after a job that ended), or why they could not be counted; empty when
   * there is no sink or none was refused. A job still running on a cluster ({@code goesOn}) may
   * refuse more.
   */
  private String refusedSoFar(DeclaredModel declared, RevisionSink sink, boolean goesOn) {
    if (sink == null) {
      return "";
    }
    String verify = "streamform ledger verify " + project + " --model " + model;
    try (HikariDataSource pool = sink.target().openPool("streamform-run", 2, 1_000)) {
      return refusedLine(
          Ledger.at(pool).conflictsRefusedBy(model, declared.model().generation(), runId),
          goesOn,
          verify);
    } catch (RuntimeException | SQLException e) {
      return "; cannot count the revision conflicts it refused: "
          + ModelLedger.firstLine(e)
          + " ("
          + verify
          + " lists any)";
    }
  }

  /**
   * The message of the {@link DatabaseRetry.GaveUp} in {@code e}'s causes (it names the database,
   * since when and what to do; its own cause is only the last refusal), else {@code otherwise}.
   */
  static String gaveUpOr(Throwable e, String otherwise) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof DatabaseRetry.GaveUp) {
        return t.getMessage();
      }
    }
    return otherwise;
  }

  /** The part of {@link #refusedSoFar}'s line for {@code n} revisions refused. */
  static String refusedLine(long n, boolean goesOn, String verify) {
    if (n == 0) {
      return "";
    }
    return "; the revision ledger refused "
        + Counts.grouped(n, "revision")
        + " of this run"
        + (goesOn ? " so far" : "")
        + " ("
        + verify
        + " lists them)";
  }

  /**
   * After the job: the records the revision sink refused as conflicts (docs/semantics.md §8) — the
   * rows of {@code revision_conflict} of the model's generation this run refused, the ones it
   * recorded and the ones an earlier run recorded that it offered again (each is refused, and
   * reported, every time), not those another run refused meanwhile (docs/decisions/0114); when the
   * ledger cannot be read, the sink's {@value RevisionSink#CONFLICTS} counter of the run ({@code
   * counted}). A line in the run's {@code summary} and why it fails on {@code err}
   * (docs/decisions/0040); those refused because the ledger lacks the row of a revision its
   * projection has passed are told apart: the ledger is damaged, not the input other
   * (docs/decisions/0137). False when there were none.
   */
  private boolean conflicts(
      long counted,
      DeclaredModel declared,
      RevisionSink sink,
      PrintWriter summary,
      PrintWriter err) {
    int g = declared.model().generation();
    long n = counted;
    long missing = 0; // of n, refused because the ledger lacks a row: a damaged ledger
    try (HikariDataSource pool = sink.target().openPool("streamform-run", 2, 10_000)) {
      n = Ledger.at(pool).conflictsRefusedBy(model, g, runId);
      missing = Ledger.at(pool).missingRowsRefusedBy(model, g, runId);
    } catch (RuntimeException | SQLException e) {
      err.println(
          "streamform run: cannot count the revision conflicts of this run: "
              + ModelLedger.firstLine(e)
              + (n > 0 ? "" : " (streamform ledger verify lists any)"));
    }
    if (n == 0) {
      return false;
    }
    String verify = "streamform ledger verify " + project + " --model " + model;
    if (missing > 0) {
      summary.println(
          model
              + ": "
              + Counts.grouped(missing, "revision")
              + " refused and recorded: the ledger in "
              + sink.target().describe()
              + " lacks rows of revisions its projections have passed ("
              + verify
              + " lists them)");
      summary.flush();
      err.println(
          "streamform run: the revision ledger is damaged: rows of "
              + Counts.grouped(missing, "revision")
              + " of generation "
              + g
              + " are missing from it (deleted outside Streamform), so it refused them again;"
              + " streamform ledger verify checks it");
    }
    n -= missing;
    if (n == 0) {
      return true;
    }
    summary.println(
        model
            + ": "
            + Counts.grouped(n, "revision conflict")
            + " refused and recorded: generation "
            + g
            + " already holds other values for those revisions in "
            + sink.target().describe()
            + " ("
            + verify
            + " lists them)");
    summary.flush();
    err.println(
        "streamform run: the revision ledger refused "
            + Counts.grouped(n, "revision")
            + " of generation "
            + g
            + (n == 1 ? " that differs" : " that differ")
            + " from what it holds: a re-run of a generation with other input or"
            + " another policy; a new policy is a new generation (--generation N, --shadow)");
    return true;
  }

  /**
   * Empty when {@code dir} is a folder the run can write its outputs to, created here when missing
   * (the run would create it, only later: after the job started); else what is wrong with it and
   * the fix, after its name, e.g. "/tmp/afile is a file, not a folder: name a folder (it is created
   * when missing)".
   */
  static Optional<String> unusableFolder(Path dir) {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      return Optional.of(
          dir + " is a file, not a folder: name a folder (it is created when missing)");
    }
    for (Path p = dir.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
      if (Files.exists(p)) {
        if (!Files.isDirectory(p)) {
          return Optional.of(
              dir + " cannot be created: " + p + " is a file, not a folder: name another folder");
        }
        break;
      }
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      return Optional.of(dir + " cannot be created: " + why(e) + ": name another folder");
    }
    if (!Files.isWritable(dir)) {
      return Optional.of(
          dir + " is not writable by this user: name another folder, or make it writable");
    }
    return Optional.empty();
  }

  /**
   * Empty when {@code file} can be written (a file, or nothing yet, in a folder this user can write
   * to, created here when missing); else what is wrong with it and the fix, after its name, e.g.
   * "/tmp/rdir is a folder, not a file: name a file (it is created, or replaced)". For the files a
   * command writes at its end ({@code test --report}, {@code --junit-xml}): checked before it
   * starts, as {@link #unusableFolder} checks {@code run --output}.
   */
  static Optional<String> unusableFile(Path file) {
    if (Files.isDirectory(file)) {
      return Optional.of(
          file + " is a folder, not a file: name a file (it is created, or replaced)");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Optional<String> folder = unusableFolder(parent);
      if (folder.isPresent()) {
        return Optional.of(file + ": its folder " + folder.get());
      }
    }
    if (Files.exists(file) && !Files.isWritable(file)) {
      return Optional.of(
          file + " is not writable by this user: name another file, or make it writable");
    }
    return Optional.empty();
  }

  /** What the file system said, with the file it said it of. */
  private static String why(IOException e) {
    if (e instanceof java.nio.file.AccessDeniedException a) {
      return a.getFile() + ": permission denied";
    }
    if (e instanceof java.nio.file.NoSuchFileException n && n.getFile() != null) {
      // its parent exists (checked before), yet the folder cannot be made: /proc, /sys
      Path parent = Path.of(n.getFile()).toAbsolutePath().getParent();
      return (parent == null ? n.getFile() : parent)
          + ": the file system refused a new folder there";
    }
    if (e instanceof java.nio.file.FileSystemException f) {
      return f.getFile() + (f.getReason() == null ? "" : ": " + f.getReason());
    }
    return String.valueOf(e.getMessage());
  }

  /**
   * Why a run failed, in one line, with what to do when a server it connects to refused the
   * connection (shared with {@code streamform test}: {@link RefusedConnection}).
   */
  static String failedLine(Throwable e, RefusedConnection.Endpoints to) {
    // a file the job could not read or write: its name and why in plain words, never the class
    String file = dev.streamform.policies.project.FileErrors.line(e);
    return RefusedConnection.withHint(file != null ? file : ModelLedger.rootLine(e), e, to);
  }

  /** What a run on {@code runner} connects to. */
  static RefusedConnection.Endpoints endpoints(
      RunnerChoice runner, String bootstrapServers, RevisionSink sink, DecisionLedgerSink ledger) {
    String jdbc =
        sink != null
            ? sink.target().describe()
            : ledger != null ? ledger.target().describe() : null;
    return new RefusedConnection.Endpoints(
        runner.flinkCluster().orElse(null), jdbc, bootstrapServers);
  }

  /** The revision sink's conflicts counter of a job that ended; 0 when the runner has none. */
  private static long revisionConflicts(PipelineResult result) {
    try {
      long n = 0;
      for (MetricResult<Long> c :
          result
              .metrics()
              .queryMetrics(
                  MetricsFilter.builder()
                      .addNameFilter(
                          MetricNameFilter.named(
                              StreamformMetrics.NAMESPACE, RevisionSink.CONFLICTS))
                      .build())
              .getCounters()) {
        n += StreamformMetrics.valueAfterJob(c);
      }
      return n;
    } catch (RuntimeException e) {
      return 0; // a runner that cannot say: the ledger's rows still do
    }
  }

  /**
   * After a shadow run on files: which of the live run's too-late events (its late output in {@code
   * liveOutputs}) the shadow generation's revisions now include (docs/decisions/0048).
   */
  private static void recomputedLateEvents(
      DeclaredModel declared, RevisionSink sink, Path liveOutputs, PrintWriter out)
      throws IOException, SQLException {
    Path late = liveOutputs.resolve(ModelSinks.of(declared).lateTopic() + ".jsonl");
    int g = declared.model().generation();
    if (!Files.exists(late)) {
      out.println(
          "too-late events of the live run: no "
              + late
              + " to check against generation "
              + g
              + " (streamform run writes it; --output names another folder)");
      return;
    }
    List<JsonNode> rows = LateEventsRecomputed.rows(late);
    LateEventsRecomputed.Result r;
    try (HikariDataSource pool = sink.target().openPool("streamform-run", 2, 10_000)) {
      r = LateEventsRecomputed.in(pool, declared.model().name(), g, declared.keyColumns(), rows);
    }
    out.println(LateEventsRecomputed.line(late.toString(), r, g));
  }

  /**
   * The summary's first line: the lines read and where each went, every event on one count ({@link
   * FileModelRun.Summary#addsUp}).
   */
  static String readLine(FileModelRun.Summary summary) {
    String handled =
        summary.decides
            ? Counts.number(summary.decided)
                + " decided ("
                + Counts.grouped(summary.revised, "revision")
                + "), "
                + (summary.reconciledBelowHorizon == 0
                    ? ""
                    : Counts.number(summary.reconciledBelowHorizon)
                        + " reconciled for freed state, ")
                + Counts.number(summary.decisionsLate)
                + " late, "
                + duplicates(summary)
                + Counts.number(summary.skewed + summary.quarantined)
                + " dead-lettered"
            : Counts.grouped(summary.processed, "event")
                + " processed, "
                + Counts.number(summary.late)
                + " late, "
                + duplicates(summary)
                + Counts.number(summary.quarantined)
                + " quarantined";
    return Counts.grouped(summary.recordsRead, "line")
        + " read: "
        + handled
        + (summary.filtered == 0
            ? ""
            : ", " + Counts.number(summary.filtered) + " filtered out by WHERE")
        + (summary.punctuations == 0
            ? ""
            : ", " + Counts.grouped(summary.punctuations, "watermark line"));
  }

  private static String duplicates(FileModelRun.Summary summary) {
    return summary.detectsDuplicates || summary.duplicates > 0
        ? Counts.grouped(summary.duplicates, "duplicate") + ", "
        : "";
  }

  /** A progress line on standard error every this many lines of a file. */
  private static final long PROGRESS_EVERY = 100_000;

  /** How long a detached run waits for its job's tasks to run before it returns. */
  static final java.time.Duration DETACHED_PATIENCE = java.time.Duration.ofSeconds(30);

  /**
   * The exit status of a detached run whose job {@code id} on {@code cluster} became {@code
   * settled} within {@link #DETACHED_PATIENCE}: 1 with the cluster's cause when it failed (a job
   * submitted to a cluster with no free task slots fails seconds after the submission); 0 when it
   * runs, and with a note when it does not run yet or the cluster did not say.
   */
  static int detachedJob(
      ClusterJobWatch.Settled settled, String id, String cluster, PrintWriter err) {
    String where = ClusterJobWatch.restBase(cluster) + "/#/job/running/" + id + "/overview";
    switch (settled.outcome()) {
      case FAILED -> {
        err.println(
            "streamform run: job "
                + id
                + " failed on the Flink cluster at "
                + cluster
                + " right after it was submitted"
                + (settled.cause().isEmpty() ? "" : ": " + settled.cause())
                + hint(settled.cause())
                + " (the cluster's own account is in its JobManager's log)");
        return 1;
      }
      case NOT_YET -> {
        err.println(
            "streamform run: note: job "
                + id
                + " was submitted but its tasks do not all run after "
                + DETACHED_PATIENCE.toSeconds()
                + " s (job "
                + settled.state()
                + (settled.cause().isEmpty()
                    ? ""
                    : settled.state().equals("RESTARTING")
                        ? ", after " + settled.cause()
                        : ": " + settled.cause())
                + "): see "
                + where
                + (settled.cause().contains("wait for a task slot")
                    ? " — Flink fails the job once its slot request times out"
                        + " (slot.request.timeout, 5 min by default) unless a TaskManager with"
                        + " free slots registers (runners-config/bin/flink start-taskmanager)"
                    : ""));
        return 0;
      }
      case UNKNOWN -> {
        err.println(
            "streamform run: note: the Flink cluster at "
                + cluster
                + " did not say whether job "
                + id
                + " runs"
                + (settled.cause().isEmpty() ? "" : " (" + settled.cause() + ")")
                + ": see "
                + where);
        return 0;
      }
      default -> {
        return 0;
      }
    }
  }

  private static String hint(String cause) {
    return cause.startsWith("NoResourceAvailableException")
        ? " — the cluster has too few free task slots for the job's parallelism: start a"
            + " TaskManager (runners-config/bin/flink start-taskmanager) or run with a lower"
            + " --parallelism"
        : "";
  }

  /** The Flink job id of a detached submission (Beam's result keeps it to itself). */
  private static String jobId(PipelineResult result) {
    if (result instanceof FlinkDetachedRunnerResult) {
      try {
        Field f = FlinkDetachedRunnerResult.class.getDeclaredField("jobClient");
        f.setAccessible(true);
        return ((JobClient) f.get(result)).getJobID().toHexString();
      } catch (ReflectiveOperationException | RuntimeException e) {
        // fall through: the job runs, only its id is unknown here
      }
    }
    return "submitted (job id unknown: see the Flink dashboard)";
  }

  private static String cannotUse(JdbcTarget target, Exception e) {
    return "streamform run: cannot use the database "
        + target.describe()
        + ": "
        + ModelLedger.firstLine(e);
  }

  /**
   * Records {@code count} as the partition count of {@code generation} of the model's source, for
   * files and Kafka alike: the count is part of the generation's watermark topology
   * (docs/decisions/0054). Empty when recorded; else why not ({@code what} says where the count
   * came from: the declaration, whose remedy may also be to declare the recorded count again, or
   * the topic).
   */
  private Optional<String> recordPartitions(
      JdbcTarget target,
      String sourceName,
      int generation,
      int count,
      String what,
      boolean declaredCount) {
    Optional<Ledger.RecordedPartitions> refused;
    try (HikariDataSource pool = target.openPool("streamform-run", 2, 10_000)) {
      refused = Ledger.at(pool).recordPartitions(model, generation, sourceName, count);
    } catch (RuntimeException | SQLException e) {
      return Optional.of(cannotUse(target, e));
    }
    return refused.map(
        r ->
            "streamform run: "
                + what
                + ", but generation "
                + generation
                + " of "
                + model
                + " ran with "
                + r.recorded()
                + " (recorded "
                + r.recordedAt()
                + "; "
                + Counts.grouped(r.projections(), "projection")
                + " published): a partition count is part of the watermark topology"
                + " — declare a new generation: N in streamform.yml and roll it out (streamform"
                + " run --generation N --shadow)"
                + (declaredCount ? ", or declare partitions: " + r.recorded() + " again" : ""));
  }

  /**
   * What a shadow run of {@code generation} does with the model's effect rules, for its start line
   * ({@code share}: the model's canary share, read with its canonical generation): nothing while
   * another generation is canonical for every key; for the keys of a canary share that reads it,
   * their windows' rules are evaluated as a live job's are (docs/decisions/0179). A promotion while
   * the job runs makes every key read it; a file run of the canonical generation is refused before
   * this.
   */
  private static String shadowEffects(
      int generation, List<EffectRule> rules, Optional<dev.streamform.sink.CanaryShare> share) {
    if (rules.isEmpty()) {
      return "no effect is prepared";
    }
    Optional<dev.streamform.sink.CanaryShare> canary =
        share.filter(c -> c.generation() == generation);
    String theRules = "the model's effect rules (" + rules.size() + ")";
    return canary.isPresent()
        ? theRules
            + " act for the keys a canary share reads from generation "
            + generation
            + " ("
            + dev.streamform.sink.CanaryShare.percent(canary.get().basisPoints())
            + " of keys), as a live job's do, and for no other key"
        : theRules
            + " prepare nothing while generation "
            + generation
            + " is not canonical for a key (a canary share or a promotion makes it so)";
  }

  /**
   * The line that says what the declared effect rules would do to the windows of the canonical
   * generation written before them, which this run does not evaluate (it evaluates the rules on the
   * revisions it writes), and the command that evaluates them; empty when the rules would change
   * nothing (docs/decisions/0149). Read by evaluating the rules as {@code alias set} would, in a
   * transaction that is rolled back.
   */
  private Optional<String> notEvaluated(
      JdbcTarget target, DeclaredModel declared, int canonical, List<EffectRule> rules) {
    LedgerWriter.Effects fx;
    try (HikariDataSource pool = target.openPool("streamform-run", 2, 10_000)) {
      fx =
          Ledger.at(pool)
              .effectsNotEvaluated(
                  model,
                  canonical,
                  rules,
                  dev.streamform.planner.Schemas.of(declared.outputColumns()));
    } catch (RuntimeException | SQLException e) {
      return Optional.of(
          "streamform run: "
              + model
              + ": could not compare the effects of generation "
              + canonical
              + " with the declared effect rules ("
              + e.getMessage()
              + "); streamform alias set --generation "
              + canonical
              + " evaluates the rules on every window");
    }
    List<String> would = new ArrayList<>();
    if (fx.prepared() > 0) {
      would.add("prepare " + Counts.grouped(fx.prepared(), "effect"));
    }
    if (fx.updated() > 0) {
      would.add("update " + Counts.grouped(fx.updated(), "prepared effect"));
    }
    if (fx.cancelled() > 0) {
      would.add("cancel " + Counts.grouped(fx.cancelled(), "prepared effect"));
    }
    if (fx.compensations() > 0) {
      would.add("record " + Counts.grouped(fx.compensations(), "compensation"));
    }
    if (would.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "streamform run: "
            + model
            + ": the declared effect rules would "
            + String.join(", ", would)
            + ", for windows of generation "
            + canonical
            + " written before them, that this run does not evaluate (a run evaluates the rules on"
            + " the revisions it writes): streamform alias set "
            + ShellWords.quote(project)
            + " --model "
            + ShellWords.quote(model)
            + " --generation "
            + canonical
            + " --jdbc-url <url> evaluates them");
  }

  /**
   * Holds generation {@code generation} of the model to the time policy the ledger recorded for it
   * (docs/decisions/0141): the first run records the declared policy (as inspect-plan prints it); a
   * later run whose watermark topology differs from the recorded one ({@link
   * PlanDiff#policyTopologyChanges}, what {@code plan} says needs a new generation) is refused once
   * the generation has published projections (a windowed model) or written decisions (a scoring
   * model, docs/decisions/0145), and takes the record's place while it has published none. Empty
   * when the run may go on; else the one line that says why not, naming the file and line of the
   * changed declaration, the generation and the fix.
   */
  /**
   * A scoring run's note when its generation already holds decisions that another version of the
   * model scored (another model or preprocessing digest): this run's decisions have other ids, so
   * they are written beside those, none overwritten (docs/semantics.md §11) — said, not refused,
   * since a changed scorer needs no new generation, but nothing else would tell the user that the
   * ledger now holds two chains of the generation. Null when there are none, or when the scorer
   * cannot be built here (the run says why) or the ledger cannot be read (the run fails on it).
   */
  private String otherVersions(JdbcTarget target, DeclaredModel declared, int generation) {
    String modelDigest;
    String preprocessingDigest;
    try {
      dev.streamform.transforms.decisions.ScoreEvents scoring = declared.scoreEvents();
      if (scoring.scorer() == null) {
        return null;
      }
      modelDigest = scoring.scorer().digest();
      preprocessingDigest = scoring.preprocessor().digest();
    } catch (RuntimeException e) {
      return null;
    }
    DecisionLedger.OtherVersions found;
    int next;
    try (HikariDataSource pool = target.openPool("streamform-run", 2, 10_000)) {
      found =
          DecisionLedger.at(pool)
              .otherVersions(model, generation, modelDigest, preprocessingDigest);
      if (found.decisions() == 0) {
        return null;
      }
      next = Math.max(generation, Ledger.at(pool).latestGeneration(model).orElse(generation)) + 1;
    } catch (RuntimeException | SQLException e) {
      return null;
    }
    return "note: generation "
        + generation
        + " of "
        + model
        + " already holds "
        + Counts.grouped(found.decisions(), "decision")
        + " scored by another "
        + (found.byAnotherModelDigest() == found.decisions()
            ? "model digest"
            : found.byAnotherModelDigest() == 0
                ? "preprocessing digest"
                : "model or preprocessing digest")
        + "; this run's decisions are written beside them, not over them, so streamform"
        + " decisions show and decisions verify list both — to keep them apart, run the changed"
        + " model as a new generation (set generation: "
        + next
        + " on model "
        + model
        + " in "
        + project.resolve("streamform.yml")
        + "; streamform plan shows what changed)";
  }

  private Optional<String> holdPolicy(
      JdbcTarget target, Project loaded, DeclaredModel declared, int generation) {
    JsonNode timePolicy = PlanManifest.of(loaded, model).toTree().path("time_policy");
    if (!timePolicy.path("policy").isObject()) {
      return Optional.empty(); // no event time: no clock, no watermark topology
    }
    JsonNode policy = timePolicy.get("policy");
    String digest = timePolicy.path("digest").asText();
    try (HikariDataSource pool = target.openPool("streamform-run", 2, 10_000)) {
      Ledger ledger = Ledger.at(pool);
      Optional<Ledger.RecordedPolicy> recorded = ledger.recordedPolicy(model, generation);
      if (recorded.isEmpty()) {
        // a generation's first run, or a ledger written before policies were recorded
        ledger.recordPolicy(
            model, generation, POLICY_JSON.writeValueAsString(policy), digest, false);
        return Optional.empty();
      }
      List<PlanDiff.TopologyChange> changes =
          PlanDiff.policyTopologyChanges(POLICY_JSON.readTree(recorded.get().policy()), policy);
      if (changes.isEmpty()) {
        return Optional.empty();
      }
      if (!recorded.get().published()) {
        // nothing published under the recorded policy: the declaration is the generation's now
        ledger.recordPolicy(
            model, generation, POLICY_JSON.writeValueAsString(policy), digest, true);
        return Optional.empty();
      }
      int next = Math.max(generation, ledger.latestGeneration(model).orElse(generation)) + 1;
      return Optional.of(otherPolicy(declared, generation, recorded.get(), changes, next));
    } catch (IOException e) {
      return Optional.of(
          "streamform run: the time policy the ledger recorded for generation "
              + generation
              + " of "
              + model
              + " is not JSON ("
              + e.getMessage()
              + "): the ledger in "
              + target.describe()
              + " is damaged");
    } catch (RuntimeException | SQLException e) {
      return Optional.of(cannotUse(target, e));
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper POLICY_JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private String otherPolicy(
      DeclaredModel declared,
      int generation,
      Ledger.RecordedPolicy recorded,
      List<PlanDiff.TopologyChange> changes,
      int next) {
    StringBuilder b = new StringBuilder("streamform run: ");
    for (int i = 0; i < changes.size(); i++) {
      PlanDiff.TopologyChange c = changes.get(i);
      if (i > 0) {
        b.append("; also ");
      }
      b.append(declaredAt(declared, c)).append(": ").append(c.reason());
      if (i == 0) {
        b.append(", but generation ")
            .append(generation)
            .append(" of ")
            .append(model)
            .append(" ran with ")
            .append(
                c.before()
                    .map(v -> ABSENT.equals(v) ? "no " + c.field() + ":" : c.field() + ": " + v)
                    .orElse("another clock"))
            .append(" (recorded ")
            .append(recorded.recordedAt())
            .append("; ")
            .append(
                declared.kind().hasDecisionLedger()
                    ? Counts.grouped(recorded.decisions(), "decision") + " written"
                    : Counts.grouped(recorded.projections(), "projection") + " published")
            .append(")");
      }
    }
    PlanDiff.TopologyChange first = changes.get(0);
    b.append(": a change of the watermark topology needs a new generation — set generation: ")
        .append(next)
        .append(" on model ")
        .append(model)
        .append(" in ")
        .append(project.resolve("streamform.yml"));
    if (declared.kind().hasDecisionLedger()) {
      // no shadow generation: the new one is a new job from the log (docs/decisions/0139)
      b.append(
              " and deploy it as a new job started from the log, without --from-savepoint, in"
                  + " place of the running one (streamform run ")
          .append(ShellWords.quote(project))
          .append(" --model ")
          .append(ShellWords.quote(model))
          .append(" --jdbc-url <url>)");
    } else {
      b.append(" and roll it out as a new generation (streamform run ")
          .append(ShellWords.quote(project))
          .append(" --model ")
          .append(ShellWords.quote(model))
          .append(" --generation ")
          .append(next)
          .append(" --shadow --jdbc-url <url>)");
    }
    if (changes.size() == 1 && first.before().filter(ABSENT::equals).isPresent()) {
      // it ran without the field (a file source has no topic): nothing to declare again
      return b.append(", or go back to what generation ")
          .append(generation)
          .append(" ran with (no ")
          .append(first.field())
          .append(":)")
          .toString();
    }
    b.append(", or declare ")
        .append(
            changes.size() == 1 && first.before().isPresent()
                ? redeclared(declared, first)
                : "what generation " + generation + " ran with")
        .append(" again");
    return b.toString();
  }

  /** How a plan difference names a field the recorded policy did not have. */
  private static final String ABSENT = "(absent)";

  /**
   * The declaration that restores {@code change}'s recorded value, as the user writes it: a scoring
   * model's allowed lateness is its decisions' {@code lateness:}.
   */
  private static String redeclared(DeclaredModel declared, PlanDiff.TopologyChange change) {
    String value = change.before().orElseThrow();
    return declared.kind().hasDecisionLedger() && change.field().equals("allowed_lateness")
        ? "lateness: " + value + " (under decisions:)"
        : change.field() + ": " + value;
  }

  /** The file and line where {@code change}'s field is declared (or would be). */
  private String declaredAt(DeclaredModel declared, PlanDiff.TopologyChange change) {
    String source = change.source().orElse(declared.source().name());
    Path sources = project.resolve("sources.yml");
    Path models = project.resolve("streamform.yml");
    return switch (change.field()) {
      case "watermark" -> DeclarationLines.at(sources, List.of("sources", source, "watermark"));
      case "idleness" -> DeclarationLines.at(sources, List.of("sources", source, "idle_after"));
      case "timestamp_extractor", "event_time" ->
          DeclarationLines.at(sources, List.of("sources", source, "event_time"));
      case "partitions", "topic" ->
          DeclarationLines.at(sources, List.of("sources", source, change.field()));
      case "sources" -> DeclarationLines.at(sources, List.of("sources"));
      case "allowed_lateness" ->
          DeclarationLines.at(
              models,
              declared.kind().hasDecisionLedger()
                  ? List.of("models", model, "decisions", "lateness")
                  : List.of("models", model, "allowed_lateness"));
      default -> DeclarationLines.at(models, List.of("models", model, change.field()));
    };
  }

  private static final java.util.regex.Pattern POSITION =
      java.util.regex.Pattern.compile("partition (\\d+) offset (\\d+)");

  /**
   * {@code message} with each source position ({@code partition P offset O}) of a file run named by
   * its file and line as well, as the late and quarantine rows name them.
   */
  static String atLines(String message, List<String> files) {
    java.util.regex.Matcher m = POSITION.matcher(message);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      int partition = Integer.parseInt(m.group(1));
      long line = Long.parseLong(m.group(2)) + 1;
      String at =
          partition < files.size()
              ? files.get(partition) + " line " + line + " (" + m.group() + ")"
              : m.group();
      m.appendReplacement(b, java.util.regex.Matcher.quoteReplacement(at));
    }
    return m.appendTail(b).toString();
  }
}

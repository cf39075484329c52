package dev.streamform.pipelines.file;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.pipelines.ModelPipeline;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.sink.decisions.DecisionLedgerSink;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.collect.LinesToFiles;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.windows.WindowRevision;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * A model run on its {@code connector: file} source: the declared file(s) read by {@link
 * FileSource}, the model's pipeline built by {@link ModelPipeline} with the clock fixtures use
 * ({@link DeclaredModel#clock()}: offset order per partition, every file's partition held from the
 * start), and the three outputs written as JSON lines files in a folder — or to Kafka topics when a
 * broker is named. The input is bounded: at its end every partition's watermark goes to infinity
 * (docs/semantics.md §6), so every open window ends with its final record, as in a fixture.
 *
 * <p>Files: {@code path:} of {@code sources.yml}, relative to the project folder, names one file or
 * a glob ({@code orders/*.jsonl}); the files it matches, sorted by name, are partitions 0, 1, ....
 * A line's offset is its line number minus one.
 *
 * <p>Output files in the folder, named after the model's topics: {@code <model>.jsonl} (the
 * changelog, or the window records), {@code <model>.late.jsonl}, {@code <model>.quarantine.jsonl}
 * and, when the source declares {@code event_id}, {@code <model>.duplicates.jsonl} (the events
 * dropped as duplicates, by partition and offset) — for a scoring model {@code
 * <model>.decisions.jsonl} (by the decided event's partition and offset, then revision), {@code
 * <model>.late.jsonl}, {@code <model>.reconcile.jsonl} and {@code <model>.dead_letters.jsonl}
 * instead; each line is the JSON value {@link ModelSinks} documents, late and quarantine rows with
 * the {@code file} and {@code line} they came from. They are in a fixed order, whatever the runner
 * did: the changelog and late rows by the causing event's partition and offset (per key, the order
 * the events were applied, for keys that live in one file), window records by window end, window
 * start, key, then revision (previews first, the final record last), quarantine rows by partition
 * and offset.
 */
public final class FileModelRun {
  // exact decimals both ways: 10.00 stays 10.00 when a row is read back and written again
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

  private final DeclaredModel model;
  private final List<Path> files;
  private final List<String> names;
  private final List<Path> leftOutOutputs;
  private final Map<String, String> links;

  private FileModelRun(
      DeclaredModel model,
      List<Path> files,
      List<String> names,
      List<Path> leftOutOutputs,
      Map<String, String> links) {
    this.model = model;
    this.files = files;
    this.names = names;
    this.leftOutOutputs = leftOutOutputs;
    this.links = links;
  }

  /**
   * The run of {@code model}, whose source is a file source of the project at {@code projectDir}.
   *
   * @throws IllegalArgumentException naming the source, its path and the fix, when the source is
   *     not a file source or its path matches no file
   */
  public static FileModelRun of(DeclaredModel model, Path projectDir) {
    return of(model, projectDir, projectDir.resolve("target").resolve(model.model().name()));
  }

  /**
   * As above, for a run whose outputs go to the folder {@code outputs}: a glob's matches under it,
   * or under a run's {@code .parts-*} working folder, are outputs of runs, left out (ADR 0217); of
   * matches that are the same file (a link and its target), the first by name is read, once.
   */
  public static FileModelRun of(DeclaredModel model, Path projectDir, Path outputs) {
    SourceDeclaration source = model.source();
    if (source.connector() != Connector.FILE) {
      throw new IllegalArgumentException(
          "model '"
              + model.model().name()
              + "' reads source '"
              + source.name()
              + "', which is not a file source (connector: "
              + source.connector().yamlName()
              + ")");
    }
    String pattern = source.path().get();
    Path root = projectDir.toAbsolutePath().normalize();
    List<Path> files = new ArrayList<>();
    List<Path> leftOutOutputs = new ArrayList<>();
    Map<String, String> links = new LinkedHashMap<>();
    Map<Path, Path> byRealPath = new LinkedHashMap<>();
    Path outputFolder = outputs.toAbsolutePath().normalize();
    boolean glob = dev.streamform.policies.project.ProjectFiles.isGlob(pattern);
    for (Path f : resolve(projectDir, pattern)) {
      if (glob && (f.startsWith(outputFolder) || inPartsFolder(root.relativize(f)))) {
        leftOutOutputs.add(f);
        continue;
      }
      Path first = byRealPath.putIfAbsent(reached(f), f);
      if (first != null) {
        links.put(root.relativize(f).toString(), root.relativize(first).toString());
        continue;
      }
      files.add(f);
    }
    if (files.isEmpty()) {
      throw new IllegalArgumentException(
          "sources.yml: source '"
              + source.name()
              + "' path: "
              + pattern
              + " matches no file under "
              + projectDir
              + (leftOutOutputs.isEmpty()
                  ? ""
                  : " but outputs of runs under the output folder " + outputFolder)
              + " — give a file of JSON lines (or a glob such as orders/*.jsonl) relative to the"
              + " project folder");
    }
    for (Path f : files) {
      // check refused such a path:; a glob's match may still be a link to elsewhere
      if (!dev.streamform.policies.project.ProjectFiles.inside(projectDir, f)) {
        throw new IllegalArgumentException(
            "sources.yml: source '"
                + source.name()
                + "' path: "
                + pattern
                + " matches "
                + f
                + ", which lies outside the project folder "
                + projectDir
                + " — copy the file into the project folder");
      }
    }
    List<String> names = new ArrayList<>();
    for (Path f : files) {
      names.add(projectDir.toAbsolutePath().normalize().relativize(f).toString());
    }
    // before the job starts: a file it cannot read would fail it halfway, with the runner's words
    checkReadable(files, Files::newInputStream);
    return new FileModelRun(model, files, names, leftOutOutputs, links);
  }

  private static boolean inPartsFolder(Path relative) {
    for (Path segment : relative) {
      if (segment.toString().startsWith(OutputFolder.PARTS_PREFIX)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reads the first bytes of each file (as the job would) and throws on the first it cannot:
   * "<file>: cannot be read: permission denied — check the file's permissions", or that is saved as
   * UTF-16 or UTF-32, in the words {@code check} reports it with ({@link
   * dev.streamform.policies.project.UnreadableDataFile}).
   *
   * @throws IllegalArgumentException naming the file, why it cannot be read and the fix
   */
  static void checkReadable(
      List<Path> files, dev.streamform.policies.project.UnreadableDataFile.Opener opener) {
    for (Path f : files) {
      dev.streamform.policies.project.UnreadableDataFile.of(f, opener)
          .ifPresent(
              unreadable -> {
                throw new IllegalArgumentException(unreadable.refusal());
              });
    }
  }

  /**
   * The files path: names, relative to {@code projectDir}: one file, or a glob's matches by name.
   */
  static List<Path> resolve(Path projectDir, String pattern) {
    return dev.streamform.policies.project.ProjectFiles.matching(projectDir, pattern);
  }

  /** The files read, partition 0 first. */
  public List<Path> files() {
    return files;
  }

  /** The files as the output names them (relative to the project folder), partition 0 first. */
  public List<String> fileNames() {
    return names;
  }

  /**
   * The files the glob matched under the output folder or a {@code .parts-*} folder, left out of
   * the input.
   */
  public List<Path> leftOutOutputs() {
    return leftOutOutputs;
  }

  /**
   * The files the glob matched that are a file read already (a link, or its target), left out: each
   * name -> the name of the file read.
   */
  public Map<String, String> sameFiles() {
    return links;
  }

  /**
   * The files a run into the folder {@code dir} writes (records, late, quarantine, and the
   * duplicates, reconcile and idle files where the model has them), each replaced whole at the
   * run's end.
   */
  public List<Path> outputFiles(Path dir) {
    ModelSinks sinks = ModelSinks.of(model);
    List<Path> out = new ArrayList<>();
    out.add(output(dir, sinks.topic()));
    out.add(output(dir, sinks.lateTopic()));
    out.add(output(dir, sinks.quarantineTopic()));
    sinks.duplicatesTopic().ifPresent(t -> out.add(output(dir, t)));
    sinks.reconcileTopic().ifPresent(t -> out.add(output(dir, t)));
    sinks.idleTopic().ifPresent(t -> out.add(output(dir, t)));
    return out;
  }

  /**
   * The first output file a run into {@code dir} writes that is one of its own input files, with
   * that input file: the run would replace its input with its output. Compared as the files are
   * reached: by real path, links followed (for an output file not there yet, its folder's).
   */
  public Optional<Map.Entry<Path, Path>> outputOverInput(Path dir) {
    Map<Path, Path> inputs = new LinkedHashMap<>();
    for (Path f : files) {
      inputs.putIfAbsent(reached(f), f);
    }
    for (Path out : outputFiles(dir)) {
      Path input = inputs.get(reached(out));
      if (input != null) {
        return Optional.of(Map.entry(out, input));
      }
    }
    return Optional.empty();
  }

  /** Where {@code file} leads: its real path, or its folder's real path and its name. */
  private static Path reached(Path file) {
    Path f = file.toAbsolutePath().normalize();
    try {
      if (Files.exists(f)) {
        return f.toRealPath();
      }
      Path parent = f.getParent();
      if (parent != null && Files.exists(parent)) {
        return parent.toRealPath().resolve(f.getFileName());
      }
    } catch (IOException e) {
      // unresolvable: compared as written
    }
    return f;
  }

  /**
   * Where the outputs go: a folder of JSON lines files, Kafka topics at a broker, or nowhere (a
   * shadow run, whose revision sink is its only output).
   */
  public static final class Target {
    final @Nullable Path dir;
    final @Nullable OutputFolder held;
    final dev.streamform.pipelines.kafka.@Nullable KafkaConnection kafka;

    private Target(
        @Nullable Path dir,
        @Nullable OutputFolder held,
        dev.streamform.pipelines.kafka.@Nullable KafkaConnection kafka) {
      this.dir = dir;
      this.held = held;
      this.kafka = kafka;
    }

    /**
     * The folder {@code dir}, which the run takes ({@link OutputFolder#lock}) before its job and
     * releases at its end; {@link OutputFolder.Busy} when another run holds it.
     */
    public static Target folder(Path dir) {
      return new Target(dir, null, null);
    }

    /** A folder the caller took already (to refuse a busy or unwritable one before anything). */
    public static Target folder(OutputFolder held) {
      return new Target(held.dir(), held, null);
    }

    /** The model's topics at the broker {@code connection} reaches (with its client settings). */
    public static Target kafka(dev.streamform.pipelines.kafka.KafkaConnection connection) {
      return new Target(null, null, connection);
    }

    /**
     * No output at all: the rows are counted, not written (a shadow run writes only its revisions,
     * so the live run's late, quarantine and window outputs stay as they are).
     */
    public static Target none() {
      return new Target(null, null, null);
    }
  }

  /** What a run read and wrote. The counts come from the run's Beam metrics. */
  public static final class Summary {
    public final long recordsRead;
    public final long punctuations;
    public final long processed;
    public final long late;
    public final long quarantined;
    public final long filtered;

    /** Events dropped as duplicates ({@code event_id}); conflicts count as quarantined. */
    public final long duplicates;

    /**
     * Output rows too large for the Kafka producer, written to the quarantine topic in their place
     * (ADR 0199): rows, not events, outside the sum.
     */
    public final long rowsTooLargeForKafka;

    /** True when the source declares {@code event_id}, so duplicates are looked for. */
    public final boolean detectsDuplicates;

    /** Output name -> rows written (files only; empty for Kafka). */
    public final Map<Path, Long> written;

    /** An earlier run's output files of the model, which this run does not write, removed. */
    public final List<Path> removed;

    /** Revisions the revision sink appended to the correction ledger (new ones, not replays). */
    public final long databaseRevisions;

    /** Decisions the decision ledger inserted (new ones, not replays). */
    public final long databaseDecisions;

    /**
     * Decisions the decision ledger refused: it holds their {@code decision_id} with another
     * outcome (ADR 0209).
     */
    public final long decisionConflicts;

    /** True for a scoring model, whose events are decided, late or dead-lettered. */
    public final boolean decides;

    /** A scoring model's events decided (their first decision, route {@code scored}). */
    public final long decided;

    /** A scoring model's revisions (route {@code revised}): decisions beyond the first. */
    public final long revised;

    /**
     * A scoring model's late events (ignored, revising or reconciled): no decision of their own.
     */
    public final long decisionsLate;

    /**
     * A scoring model's events dead-lettered by the scorer: clock skew, a feature or score not
     * finite (the others count as quarantined).
     */
    public final long skewed;

    /**
     * A scoring model's events, not late, that got no decision because their features would read
     * state their key had freed: on the reconcile route (ADR 0050).
     */
    public final long reconciledBelowHorizon;

    /**
     * The summary of a run whose Beam counters (namespace {@code streamform}) are {@code counters},
     * by metric name ({@link StreamformMetrics}, {@link ScoreEvents}); a name not there counts 0.
     */
    public Summary(
        Map<String, Long> counters,
        Map<Path, Long> written,
        boolean detectsDuplicates,
        boolean decides) {
      this(counters, written, List.of(), detectsDuplicates, decides);
    }

    /**
     * As above, for a run that also removed {@code removed}: an earlier run's output files of the
     * model that this run does not write (ADR 0219).
     */
    public Summary(
        Map<String, Long> counters,
        Map<Path, Long> written,
        List<Path> removed,
        boolean detectsDuplicates,
        boolean decides) {
      this.removed = List.copyOf(removed);
      this.decides = decides;
      this.databaseRevisions = counters.getOrDefault(dev.streamform.sink.RevisionSink.APPLIED, 0L);
      this.databaseDecisions = counters.getOrDefault(DecisionLedgerSink.DECISIONS_WRITTEN, 0L);
      this.decisionConflicts = counters.getOrDefault(DecisionLedgerSink.DECISION_CONFLICTS, 0L);
      this.decided = counters.getOrDefault(ScoreEvents.DECIDED, 0L);
      this.revised = counters.getOrDefault(ScoreEvents.REVISED, 0L);
      this.decisionsLate = counters.getOrDefault(ScoreEvents.LATE, 0L);
      this.skewed = counters.getOrDefault(ScoreEvents.DEAD_LETTERED, 0L);
      this.reconciledBelowHorizon = counters.getOrDefault(ScoreEvents.RECONCILED_BELOW_HORIZON, 0L);
      this.recordsRead = counters.getOrDefault(StreamformMetrics.RECORDS_READ, 0L);
      this.punctuations = counters.getOrDefault(StreamformMetrics.PUNCTUATIONS_READ, 0L);
      this.processed = counters.getOrDefault(StreamformMetrics.PROCESSED, 0L);
      this.late = counters.getOrDefault(StreamformMetrics.LATE_DROPPED, 0L);
      this.quarantined = counters.getOrDefault(StreamformMetrics.QUARANTINED, 0L);
      this.filtered = counters.getOrDefault(StreamformMetrics.FILTERED, 0L);
      this.duplicates = counters.getOrDefault(StreamformMetrics.DUPLICATES_DROPPED, 0L);
      this.rowsTooLargeForKafka =
          counters.getOrDefault(StreamformMetrics.ROWS_TOO_LARGE_FOR_KAFKA, 0L);
      this.detectsDuplicates = detectsDuplicates;
      this.written = written;
    }

    /**
     * True when processed + late + duplicates + quarantined + filtered + punctuations = records
     * read; for a scoring model, decided + reconciled below a freed horizon + late + dead-lettered
     * by the scorer in place of processed + late.
     */
    public boolean addsUp() {
      return accountedFor() == recordsRead;
    }

    /**
     * The records read that have been dealt with: processed (or decided) or late, duplicates,
     * quarantined, filtered and punctuations; {@link #recordsRead} once the run has ended.
     */
    public long accountedFor() {
      long handled =
          decides
              ? decided + reconciledBelowHorizon + decisionsLate + skewed
              : processed + late; // each event once
      return handled + duplicates + quarantined + filtered + punctuations;
    }
  }

  /**
   * What the runs of this JVM's counters ({@link StreamformMetrics#countedInThisJvm}) have counted
   * since {@code before} was taken, as this model's summary (no file written): a run's progress on
   * a runner in this process, while its job runs.
   */
  public Summary countedInThisJvmSince(Map<String, Long> before) {
    Map<String, Long> since = new LinkedHashMap<>();
    StreamformMetrics.countedInThisJvm()
        .forEach((name, n) -> since.put(name, n - before.getOrDefault(name, 0L)));
    return new Summary(since, Map.of(), model.deduplicate().isPresent(), model.decides());
  }

  /**
   * Runs the model on {@code options}' runner, waits for the end of the input and writes the
   * outputs to {@code target}; {@code revisionSink}, when given, receives a windowed model's
   * revisions too. {@code progressEvery}: a progress line on standard error every that many lines
   * of a file (0: none).
   *
   * @throws IllegalStateException when the job does not end DONE
   */
  public Summary run(
      PipelineOptions options,
      Target target,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      long progressEvery)
      throws IOException {
    return run(options, target, revisionSink, null, progressEvery);
  }

  /**
   * The pipeline {@code run} runs, built on {@code options} and not run, writing nowhere: for a
   * reader of its steps, or a test that compares it with what a fixture builds.
   */
  public Pipeline built(PipelineOptions options) throws IOException {
    Pipeline p = Pipeline.create(options);
    build(p, Target.none(), null, null, 0);
    return p;
  }

  /** Adds the run to {@code p}; the folder of a folder target's parts, or null. */
  private Path build(
      Pipeline p,
      Target target,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      @Nullable DecisionLedgerSink decisionSink,
      long progressEvery)
      throws IOException {
    SourceDeclaration source = model.source();
    FileSource reader =
        FileSource.of(files, source.schema(), model.keyColumns()).withProgressEvery(progressEvery);
    SourceResult read =
        p.apply(
            "Source " + source.name(),
            source.eventTime().isPresent() ? reader : reader.withoutPunctuations());
    PCollection<KV<String, String>> unreadable =
        read.quarantined()
            .apply(
                "Unreadable",
                MapElements.into(
                        TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings()))
                    .via(FileSource::unreadableLine));
    List<Integer> partitions =
        IntStream.range(0, files.size()).boxed().collect(Collectors.toList());
    SourceClock clock = model.clock().withPartitions(partitions);
    if (source.idleAfter().isPresent()) {
      // a file delivers no gap while it is read: a partition goes idle only once its file is read
      // (ADR 0063), so the clock learns where each file ends — its lines as FileSource numbers them
      Map<Integer, Long> ends = new LinkedHashMap<>();
      for (int i = 0; i < files.size(); i++) {
        ends.put(i, BoundedLines.count(files.get(i)));
      }
      clock =
          clock.withIdleness(Duration.millis(source.idleAfter().get().toMillis())).withEnds(ends);
    }
    ModelPipeline.Outputs outputs =
        ModelPipeline.build(model, read.records(), unreadable, clock, false, revisionSink);
    ModelSinks sinks = outputs.sinks();
    Path parts = null;
    if (target.dir != null) {
      // before anything runs: every output file lies in the folder
      output(target.dir, sinks.topic());
      output(target.dir, sinks.lateTopic());
      output(target.dir, sinks.quarantineTopic());
      Files.createDirectories(target.dir);
      parts = Files.createTempDirectory(target.dir, OutputFolder.PARTS_PREFIX);
      try {
        writeSinks(outputs, sinks, target.dir, parts);
      } catch (RuntimeException e) {
        OutputFolder.deleteTree(parts);
        throw e;
      }
    } else if (target.kafka != null) {
      dev.streamform.pipelines.kafka.KafkaConnection servers = target.kafka;
      dev.streamform.pipelines.kafka.KafkaModelPipeline.writeTopics(
          outputs, servers, servers.producerFactory(), null);
    }
    if (decisionSink != null && outputs.decisions() != null) {
      // alongside the decisions file or topic: the decisions and the reconcile route also land in
      // the decision ledger (docs/semantics.md §11)
      outputs.decisions().apply("Decisions to the database", decisionSink);
      outputs.reconciliations().apply("Reconcile queue", decisionSink.reconcileQueue());
    }
    return parts;
  }

  /** Adds the writes of each output's parts into {@code parts}, a folder below {@code dir}. */
  private static void writeSinks(
      ModelPipeline.Outputs outputs, ModelSinks sinks, Path dir, Path parts) {
    writeParts(outputs.records(), parts, "records");
    writeParts(outputs.late(), parts, "late");
    writeParts(outputs.quarantined(), parts, "quarantine");
    if (outputs.duplicates() != null) {
      writeParts(outputs.duplicates(), parts, "duplicates");
    }
    if (outputs.reconciled() != null) {
      output(dir, sinks.reconcileTopic().get());
      writeParts(outputs.reconciled(), parts, "reconcile");
    }
    if (sinks.idleTopic().isPresent()) {
      output(dir, sinks.idleTopic().get());
      writeParts(outputs.idleMarkers(), parts, "idle");
    }
  }

  /**
   * As above; a scoring model's decisions also go to {@code decisionSink} when one is given (the
   * decision ledger, {@code streamform run --jdbc-url}).
   */
  public Summary run(
      PipelineOptions options,
      Target target,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      @Nullable DecisionLedgerSink decisionSink,
      long progressEvery)
      throws IOException {
    // a folder is one run's at a time, taken before the job (docs/decisions/0101)
    OutputFolder taken =
        target.dir != null && target.held == null ? OutputFolder.lock(target.dir) : null;
    try {
      return run(
          options,
          target,
          taken != null ? taken : target.held,
          revisionSink,
          decisionSink,
          progressEvery);
    } finally {
      if (taken != null) {
        taken.close();
      }
    }
  }

  private Summary run(
      PipelineOptions options,
      Target target,
      @Nullable OutputFolder folder,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      @Nullable DecisionLedgerSink decisionSink,
      long progressEvery)
      throws IOException {
    Pipeline p = Pipeline.create(options);
    Path parts = build(p, target, revisionSink, decisionSink, progressEvery);
    PipelineResult result;
    try {
      result = p.run();
      PipelineResult.State state = result.waitUntilFinish();
      if (state != PipelineResult.State.DONE) {
        throw new IllegalStateException("the job ended " + state);
      }
    } catch (RuntimeException | Error e) {
      // a failed run leaves nothing half-written: its parts go with it
      if (parts != null) {
        OutputFolder.deleteTree(parts);
      }
      throw e;
    }
    Map<Path, Long> written = new LinkedHashMap<>();
    List<Path> removed = new ArrayList<>();
    if (parts != null) {
      try {
        written = replace(parts, target.dir, folder, removed);
      } finally {
        OutputFolder.deleteTree(parts);
      }
    }
    return new Summary(
        counters(result), written, removed, model.deduplicate().isPresent(), model.decides());
  }

  /**
   * Merges every output's parts into a whole file beside them, then moves them all into {@code dir}
   * back to back, between the folder's mark of an incomplete set and its removal: a run stopped
   * between two moves leaves the mark (docs/decisions/0101). Before the mark goes, the model's
   * output files of an earlier run that this run does not write are removed (into {@code removed}),
   * so the folder holds this run's set only (ADR 0219). The rows written, by file.
   */
  private Map<Path, Long> replace(Path parts, Path dir, OutputFolder folder, List<Path> removed)
      throws IOException {
    ModelSinks sinks = ModelSinks.of(model);
    // output file -> its merged file, in the order the summary names them
    Map<Path, Path> merged = new LinkedHashMap<>();
    merged.put(
        output(dir, sinks.topic()),
        merge(parts, "records", model.windowed() ? WINDOW_ORDER : EVENT_ORDER));
    merged.put(output(dir, sinks.lateTopic()), merge(parts, "late", EVENT_ORDER));
    merged.put(output(dir, sinks.quarantineTopic()), merge(parts, "quarantine", EVENT_ORDER));
    if (sinks.duplicatesTopic().isPresent()) {
      merged.put(
          output(dir, sinks.duplicatesTopic().get()), merge(parts, "duplicates", EVENT_ORDER));
    }
    if (sinks.reconcileTopic().isPresent()) {
      merged.put(output(dir, sinks.reconcileTopic().get()), merge(parts, "reconcile", EVENT_ORDER));
    }
    if (sinks.idleTopic().isPresent()) {
      merged.put(output(dir, sinks.idleTopic().get()), merge(parts, "idle", IDLE_ORDER));
    }
    Map<Path, Long> written = new LinkedHashMap<>();
    for (Map.Entry<Path, Path> e : merged.entrySet()) {
      try (Stream<String> lines = Files.lines(e.getValue(), StandardCharsets.UTF_8)) {
        written.put(e.getKey(), lines.count());
      }
    }
    folder.markIncomplete();
    for (Map.Entry<Path, Path> e : merged.entrySet()) {
      mover.move(e.getValue(), e.getKey());
    }
    for (Path stale : staleOutputs(dir, merged.keySet())) {
      Files.delete(stale);
      removed.add(stale);
    }
    folder.markComplete();
    return written;
  }

  /**
   * The files in {@code dir} that bear a name the model's outputs have by default, upsert, windowed
   * or scoring ({@code <model>.jsonl}, {@code .late}, {@code .quarantine}, {@code .duplicates},
   * {@code .idle}, {@code .decisions}, {@code .dead_letters}, {@code .reconcile}), that this run
   * does not write ({@code written}): an earlier run's. Never an input file of the run, a link or a
   * folder.
   */
  private List<Path> staleOutputs(Path dir, java.util.Set<Path> written) {
    String name = model.model().name();
    java.util.Set<Path> inputs = new java.util.HashSet<>();
    files.forEach(f -> inputs.add(reached(f)));
    List<Path> stale = new ArrayList<>();
    java.util.Set<Path> seen = new java.util.HashSet<>(written);
    for (boolean decides : new boolean[] {false, true}) {
      for (dev.streamform.policies.declarations.OutputTopics.Kind kind :
          dev.streamform.policies.declarations.OutputTopics.Kind.values()) {
        Path f =
            output(
                dir,
                dev.streamform.policies.declarations.OutputTopics.defaultName(kind, name, decides));
        if (seen.add(f)
            && Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)
            && !inputs.contains(reached(f))) {
          stale.add(f);
        }
      }
    }
    return stale;
  }

  /** How a merged file is moved into place: the file system's, or in a test one that fails. */
  interface Mover {
    void move(Path from, Path to) throws IOException;
  }

  /** Replaces {@code to} with {@code from} in one step. */
  static final Mover MOVE =
      (from, to) ->
          Files.move(
              from,
              to,
              java.nio.file.StandardCopyOption.REPLACE_EXISTING,
              java.nio.file.StandardCopyOption.ATOMIC_MOVE);

  /** The moves of this run (a test stops a run between two). */
  Mover mover = MOVE;

  /**
   * The file of topic {@code topic} in the folder {@code dir}; a name that would lead elsewhere
   * ({@code ../x}, a '/') is refused, though check refuses such a topic first.
   */
  static Path output(Path dir, String topic) {
    Path folder = dir.toAbsolutePath().normalize();
    Path file = folder.resolve(topic + ".jsonl").normalize();
    if (!folder.equals(file.getParent())) {
      throw new IllegalArgumentException(
          "topic '"
              + topic
              + "' is not a Kafka topic name: it would write "
              + file
              + ", outside the output folder "
              + folder);
    }
    return file;
  }

  private static void writeParts(PCollection<KV<String, String>> rows, Path dir, String name) {
    rows.apply(
        "Write " + name,
        ParDo.of(
            LinesToFiles.of(
                dir, name, (KV<String, String> kv) -> kv.getKey() + "\t" + kv.getValue())));
  }

  /**
   * One output row read back: its key and value as written (the text a Kafka record carries), and
   * the value parsed for ordering.
   */
  private static final class Row {
    final String key;
    final String text;
    final ObjectNode value;
    // the instants the orders compare, parsed once per row rather than once per comparison
    final long windowStart;
    final long windowEnd;
    final long watermark;

    Row(String line) throws IOException {
      int tab = line.indexOf('\t');
      this.key = line.substring(0, tab);
      this.text = line.substring(tab + 1);
      this.value = (ObjectNode) JSON.readTree(text);
      this.windowStart = instant(value, "window_start");
      this.windowEnd = instant(value, "window_end");
      this.watermark = instant(value, "watermark");
    }
  }

  /** The changelog, late and quarantine rows: by the causing event's partition and offset. */
  private static final Comparator<Row> EVENT_ORDER =
      Comparator.comparingLong((Row r) -> place(r)[0])
          .thenComparingLong(r -> place(r)[1])
          .thenComparingLong(r -> r.windowStart)
          .thenComparingInt(r -> r.value.path("revision").asInt(0)); // a decision's revisions

  /** Idle markers: by partition, then watermark (never backward within a partition), idle first. */
  private static final Comparator<Row> IDLE_ORDER =
      Comparator.comparingLong((Row r) -> r.value.path("partition").asLong())
          .thenComparingLong(r -> r.watermark)
          .thenComparing(r -> r.value.path("kind").asText());

  private static final Map<String, Integer> STATUS_RANK =
      Map.of("early", 0, "on_time", 1, "corrected", 1, "final", 2);

  /** Window records: by window end, window start and key, then in the order a window emits them. */
  private static final Comparator<Row> WINDOW_ORDER =
      Comparator.comparingLong((Row r) -> r.windowEnd)
          .thenComparingLong(r -> r.windowStart)
          .thenComparing(r -> r.key)
          .thenComparingInt(r -> r.value.path("revision").asInt())
          .thenComparingInt(r -> STATUS_RANK.getOrDefault(r.value.path("status").asText(), 1))
          .thenComparingLong(FileModelRun::eventsIn);

  /**
   * The instant in {@code field} of a row's value (RFC 3339 text), in epoch milliseconds; the
   * smallest long when there is none. Compared as instants, not as text: {@code 10:00:01.500Z} is
   * after {@code 10:00:01Z}, though its text sorts first.
   */
  private static long instant(ObjectNode row, String field) {
    JsonNode v = row.get(field);
    if (v == null || !v.isTextual()) {
      return Long.MIN_VALUE;
    }
    try {
      return java.time.Instant.parse(v.asText()).toEpochMilli();
    } catch (java.time.format.DateTimeParseException e) {
      return Long.MIN_VALUE;
    }
  }

  /** {partition, offset} of the event a row is about. */
  private static long[] place(Row r) {
    JsonNode event = r.value.get(ModelSinks.EVENT_FIELD);
    if (event != null) {
      String[] id = event.asText().split("-");
      return new long[] {Long.parseLong(id[0]), Long.parseLong(id[1])};
    }
    return new long[] {r.value.path("partition").asLong(), r.value.path("offset").asLong()};
  }

  private static long eventsIn(Row r) {
    long n = 0;
    for (JsonNode p : r.value.path("offsets")) {
      n += p.path("count").asLong();
    }
    return n;
  }

  /**
   * Sorts one output's parts into a whole file beside them, which it returns; the rows about a line
   * of the input (late, quarantine, duplicates, reconcile, idle and a scoring model's decisions)
   * get its file and line. A changelog's or window's rows are the model's own: a model may name its
   * columns {@code partition} and {@code offset}, and its rows are written as the job wrote them.
   */
  private Path merge(Path parts, String name, Comparator<Row> order) throws IOException {
    boolean placed = !name.equals("records") || model.decides();
    List<Row> rows = new ArrayList<>();
    for (String line : LinesToFiles.read(parts, name)) {
      rows.add(new Row(line));
    }
    rows.sort(order);
    // written beside the parts, moved into place with the others: no half a file in the folder
    Path whole = parts.resolve(name + ".merged");
    try (BufferedWriter out = Files.newBufferedWriter(whole, StandardCharsets.UTF_8)) {
      for (Row r : rows) {
        // the row as the job wrote it, the same text as on Kafka: parsed and written again, a
        // double 1.2345678E7 would come out as the decimal 12345678 (output-formats.md: the same
        // JSON goes to Kafka and to files)
        String text = r.text;
        // never over a field the row has: the row stays as the job wrote it
        if (placed
            && r.value.path("partition").isIntegralNumber()
            && r.value.path("offset").isIntegralNumber()
            && !r.value.has("file")
            && !r.value.has("line")
            && text.endsWith("}")) {
          int partition = r.value.get("partition").asInt();
          if (partition >= 0 && partition < names.size()) {
            text =
                text.substring(0, text.length() - 1)
                    + ",\"file\":"
                    + JsonNodeFactory.instance.textNode(names.get(partition))
                    + ",\"line\":"
                    + (r.value.get("offset").asLong() + 1)
                    + "}";
          }
        }
        out.write(text);
        out.newLine();
      }
    }
    return whole;
  }

  private static Map<String, Long> counters(PipelineResult result) {
    return StreamformMetrics.counters(result, "");
  }
}

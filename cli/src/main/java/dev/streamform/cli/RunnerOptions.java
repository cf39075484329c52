package dev.streamform.cli;

import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The runner options every command that runs a pipeline shares ({@code @Mixin RunnerOptions}): a
 * named profile from {@code runners-config/profiles/NAME.properties}, and options that override it.
 * A profile's keys are Beam pipeline option names; {@code runner}, {@code flinkMaster} and {@code
 * parallelism} choose the runner, every other key is passed to Beam as {@code --key=value}. Without
 * a profile: the DirectRunner, or with {@code --runner flink} the embedded Flink runner at
 * parallelism 1. A profile's {@code kafka.properties} (not a Beam option) names Kafka client
 * settings, relative to the profile's folder ({@link KafkaOptions}). A Flink option given on the
 * command line for a DirectRunner run, or {@code --job-jar} for the embedded Flink runner, is a
 * usage error, never silently dropped (docs/decisions/0087).
 */
final class RunnerOptions {
  static final String PROFILES = "runners-config/profiles";

  @Option(
      names = "--profile",
      paramLabel = "NAME",
      description =
          "a runner profile, "
              + PROFILES
              + "/NAME.properties: direct, flink-local,"
              + " flink-cluster, or one of your own; the options below override it")
  String profile;

  @Option(
      names = "--runner",
      paramLabel = "direct|flink",
      description = "the Beam runner (default: the profile's, else direct)")
  String runner;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      description = "Flink parallelism (default: the profile's, else 1)")
  Integer parallelism;

  @Option(
      names = "--flink-master",
      paramLabel = "HOST:PORT",
      description = "submit to a Flink cluster instead of the embedded one, e.g. 127.0.0.1:8081")
  String flinkMaster;

  @Option(
      names = "--checkpointing-interval",
      paramLabel = "MS",
      description = "Flink: milliseconds between checkpoints, -1 for none (default: the profile's)")
  Long checkpointingInterval;

  @Option(
      names = "--restarts",
      paramLabel = "N",
      description =
          "Flink: restart a failed job up to N times, each from its last checkpoint (e.g. after a"
              + " TaskManager died); default: the profile's numberOfExecutionRetries, else the"
              + " cluster's restart strategy (none on the local cluster)")
  Integer restarts;

  @Option(
      names = "--restart-delay",
      paramLabel = "MS",
      description =
          "Flink: milliseconds between a failure and the restart --restarts asks for; default:"
              + " the profile's executionRetryDelay, else Flink's 10 s")
  Long restartDelay;

  @Option(
      names = "--state-backend",
      paramLabel = "filesystem|rocksdb",
      description =
          "Flink: where keyed state lives: filesystem (on the heap, checkpoints in the storage"
              + " path); rocksdb is refused when flink-statebackend-rocksdb is not on streamform's"
              + " class path (it ships without it); default: the profile's, else Flink's")
  String stateBackend;

  @Option(
      names = "--state-backend-storage-path",
      paramLabel = "URI",
      description =
          "Flink, with --state-backend (refused without one): the folder (a URI) the state"
              + " backend writes checkpoints to; on a cluster every TaskManager must reach it"
              + " (default: the profile's, else on the embedded cluster a temporary folder deleted"
              + " when streamform ends)")
  String stateBackendStoragePath;

  @Option(
      names = "--job-jar",
      paramLabel = "JAR",
      description =
          "the shaded jar to stage to a Flink cluster (default: the checkout's"
              + " job-jar/target jar, built when missing or stale)")
  Path jobJar;

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /** The profile's kafka.properties file, known once {@link #choice()} has read the profile. */
  private Path kafkaProperties;

  /**
   * The runner these options choose; a mistake in them or in the profile is a usage error, and a
   * Flink cluster nobody listens at an {@link IllegalStateException} that names it and the fix.
   */
  RunnerChoice choice() {
    return choice(RefusedConnection::requireFlinkCluster);
  }

  /** As {@link #choice()}, with {@code clusterCheck} called on a Flink cluster's address first. */
  RunnerChoice choice(java.util.function.Consumer<String> clusterCheck) {
    Map<String, String> beam = profile == null ? new LinkedHashMap<>() : loadProfile(profile);
    String profileRunner = beam.remove("runner");
    String profileMaster = beam.remove("flinkMaster");
    String profileParallelism = beam.remove("parallelism");
    String profileKafka = beam.remove("kafka.properties");
    if (profileKafka != null) {
      kafkaProperties = Home.dir().resolve(PROFILES).resolve(profileKafka);
      if (!Files.isRegularFile(kafkaProperties)) {
        throw usage(
            "profile " + profile + ": kafka.properties " + kafkaProperties + " is not a file");
      }
    }
    String chosenRunner = runner != null ? runner : runnerName(profileRunner);
    if (checkpointingInterval != null) {
      if (checkpointingInterval == 0 || checkpointingInterval < -1) {
        // Flink refused it in every job it started ("The checkpoint interval must be positive")
        throw usage(
            "--checkpointing-interval "
                + checkpointingInterval
                + ": checkpoints need a positive number of milliseconds between them; give one,"
                + " or -1 for no checkpoints");
      }
      beam.put("checkpointingInterval", checkpointingInterval.toString());
    }
    if (stateBackend != null) {
      beam.put("stateBackend", stateBackend);
    }
    if (stateBackendStoragePath != null) {
      beam.put("stateBackendStoragePath", stateBackendStoragePath);
    }
    if (restarts != null) {
      if (restarts < 0) {
        throw usage("--restarts must be 0 or more, not " + restarts);
      }
      beam.put("numberOfExecutionRetries", restarts.toString());
    }
    if (restartDelay != null) {
      if (restartDelay < 0) {
        throw usage("--restart-delay must be 0 or more milliseconds, not " + restartDelay);
      }
      beam.put("executionRetryDelay", restartDelay.toString());
    }
    RunnerChoice choice;
    switch (chosenRunner) {
      case "direct":
        refuseStateBackendOnDirect();
        Map<String, Object> given = flinkOptionsGiven();
        if (!given.isEmpty()) {
          // refused, not ignored: whoever typed one asked for something (ADR 0087)
          boolean one = given.size() == 1;
          throw usage(
              Streamform.typed(given)
                  + (one ? " is a Flink option" : " are Flink options")
                  + ", and this run is on the DirectRunner: add --runner flink, or leave "
                  + (one ? "out " + given.keySet().iterator().next() : "them out"));
        }
        choice = RunnerChoice.direct();
        break;
      case "flink":
        if (restartDelay != null && !beam.containsKey("numberOfExecutionRetries")) {
          throw usage(
              "--restart-delay "
                  + restartDelay
                  + " waits between restarts, and this run asks for none: add --restarts N");
        }
        int n =
            parallelism != null
                ? parallelism
                : profileParallelism != null ? profileInt("parallelism", profileParallelism) : 1;
        if (n < 1) {
          throw usage("--parallelism must be at least 1");
        }
        String master =
            flinkMaster != null ? flinkMaster : profileMaster != null ? profileMaster : "[local]";
        if (isEmbedded(master) && jobJar != null) {
          throw usage(
              "--job-jar "
                  + jobJar
                  + " is staged to a Flink cluster, and this run is on the embedded Flink runner:"
                  + " add --flink-master HOST:PORT (or --profile flink-cluster), or leave out"
                  + " --job-jar");
        }
        // a usage error, before connecting to a cluster or running a fixture (ADR 0123)
        stateBackend(beam, master);
        if (!isEmbedded(master)) {
          // before the job jar is built: a cluster nobody listens at is said at once
          clusterCheck.accept(master);
        }
        choice =
            isEmbedded(master)
                ? RunnerChoice.flinkLocal(n)
                : RunnerChoice.flinkCluster(master, n, List.of(jobJar().toString()));
        break;
      default:
        throw usage("--runner must be direct or flink, not '" + chosenRunner + "'");
    }
    choice = choice.withBeamOptions(beam);
    if (beam.isEmpty()) {
      // nothing to check: Beam's options registry is first touched where a pipeline is built
      // (BeamWarmUp starts it beside the parsing; docs/decisions/0163)
      return choice;
    }
    try {
      choice.options();
    } catch (IllegalArgumentException e) {
      throw usage((profile == null ? "" : "profile " + profile + ": ") + e.getMessage());
    }
    return choice;
  }

  /** The Kafka client settings the profile names, or null (call after {@link #choice()}). */
  Path kafkaProperties() {
    return kafkaProperties;
  }

  /** The Flink options given on the command line, name to value, in the order --help lists. */
  private Map<String, Object> flinkOptionsGiven() {
    Map<String, Object> given = new LinkedHashMap<>();
    given.put("--parallelism", parallelism);
    given.put("--flink-master", flinkMaster);
    given.put("--checkpointing-interval", checkpointingInterval);
    given.put("--restarts", restarts);
    given.put("--restart-delay", restartDelay);
    given.put("--state-backend", stateBackend);
    given.put("--state-backend-storage-path", stateBackendStoragePath);
    given.put("--job-jar", jobJar);
    given.values().removeIf(Objects::isNull);
    return given;
  }

  /**
   * Every runner option given on the command line, name to value, in the order --help lists: for a
   * command that, as called, runs nothing and must refuse them rather than drop them.
   */
  Map<String, Object> given() {
    Map<String, Object> given = new LinkedHashMap<>();
    given.put("--profile", profile);
    given.put("--runner", runner);
    given.values().removeIf(Objects::isNull);
    given.putAll(flinkOptionsGiven());
    return given;
  }

  /** The class Beam's Flink runner creates for {@code stateBackend=rocksdb}. */
  static final String ROCKSDB_STATE_BACKEND =
      "org.apache.flink.contrib.streaming.state.RocksDBStateBackend";

  /**
   * Refuses a state backend Beam's Flink runner would fail on once per fixture or at submission,
   * and gives {@code filesystem} on the embedded cluster a storage path where none is given
   * (docs/decisions/0123). Beam creates the state backend in this process before it submits, for a
   * cluster too, so RocksDB needs its class here whatever the cluster's own lib holds.
   */
  private void stateBackend(Map<String, String> beam, String master) {
    String backend = beam.get("stateBackend");
    if (backend == null) {
      String path = beam.get("stateBackendStoragePath");
      if (path != null) {
        // Beam reads the path only with a state backend: refused, not dropped (ADR 0087)
        boolean typed = stateBackendStoragePath != null;
        throw usage(
            (typed
                    ? "--state-backend-storage-path " + path
                    : "profile " + profile + ": stateBackendStoragePath=" + path)
                + " is where a state backend writes its checkpoints, and this run sets no"
                + " --state-backend (Beam's Flink runner reads the path only with one): add"
                + " --state-backend filesystem, or "
                + (typed
                    ? "leave out --state-backend-storage-path"
                    : "set stateBackend=filesystem in " + profileFile(profile)));
      }
      return;
    }
    boolean typed = stateBackend != null;
    String named =
        typed ? "--state-backend " + backend : "profile " + profile + ": stateBackend=" + backend;
    if (backend.equalsIgnoreCase("rocksdb")) {
      if (!onClassPath(ROCKSDB_STATE_BACKEND)) {
        throw usage(
            named
                + ": Flink's RocksDB state backend (flink-statebackend-rocksdb) is not on"
                + " streamform's class path, and Beam's Flink runner creates the state backend in"
                + " this process, for a cluster too: "
                + (typed
                    ? "use --state-backend filesystem (keyed state on the heap, checkpoints in the"
                        + " storage path)"
                    : "set stateBackend=filesystem in "
                        + profileFile(profile)
                        + ", or give --state-backend filesystem"));
      }
    } else if (!backend.equalsIgnoreCase("filesystem")) {
      throw usage(
          (typed ? "--state-backend" : "profile " + profile + ": stateBackend")
              + " must be filesystem or rocksdb, not '"
              + backend
              + "'"
              + (inMemory(backend)
                  ? " (filesystem keeps keyed state in memory, on the heap)"
                  : ""));
    }
    String path = beam.get("stateBackendStoragePath");
    if (path != null && !path.isBlank()) {
      return;
    }
    if (!isEmbedded(master)) {
      throw usage(
          named
              + " on the Flink cluster at "
              + master
              + " needs a folder for its checkpoints that every TaskManager of that cluster can"
              + " write: add --state-backend-storage-path URI (e.g."
              + " file:///tmp/streamform/checkpoints for a cluster on this machine, hdfs://... or"
              + " s3://... for one elsewhere), or set stateBackendStoragePath in the profile");
    }
    Path folder = temporaryStateFolder();
    beam.put("stateBackendStoragePath", folder.toUri().toString());
    PrintWriter err = command.commandLine().getErr();
    err.println(
        "state backend "
            + backend
            + " without a storage path: checkpoints of the embedded Flink cluster go to "
            + folder
            + ", deleted when streamform ends (--state-backend-storage-path names another)");
    err.flush();
  }

  /**
   * A {@code --state-backend} that is no Flink state backend, on the DirectRunner: "a Flink option
   * ...: add --runner flink" would send the user to a runner that refuses it too, and {@code
   * memory} is what the DirectRunner keeps anyway. A valid one is left to the Flink-options refusal
   * (ADR 0087).
   */
  private void refuseStateBackendOnDirect() {
    if (stateBackend == null
        || stateBackend.equalsIgnoreCase("filesystem")
        || stateBackend.equalsIgnoreCase("rocksdb")) {
      return;
    }
    if (inMemory(stateBackend)) {
      throw usage(
          "--state-backend "
              + stateBackend
              + ": this run is on the DirectRunner, which keeps all its state in memory and takes"
              + " no state backend: leave out --state-backend (on Flink, --state-backend"
              + " filesystem keeps keyed state in memory, on the heap)");
    }
    throw usage(
        "--state-backend "
            + stateBackend
            + " is not a state backend (Flink's are filesystem and rocksdb), and this run is on the"
            + " DirectRunner, which takes none: leave out --state-backend, or add --runner flink"
            + " with --state-backend filesystem or rocksdb");
  }

  /**
   * A name for keeping state in memory: Flink's {@code hashmap} (heap), its old {@code jobmanager}.
   */
  private static boolean inMemory(String backend) {
    return java.util.Set.of("memory", "heap", "hashmap", "jobmanager", "in-memory", "inmemory")
        .contains(backend.toLowerCase(java.util.Locale.ROOT));
  }

  private static boolean onClassPath(String className) {
    try {
      Class.forName(className, false, RunnerOptions.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** A new temporary folder, deleted with what is in it when this JVM ends. */
  private Path temporaryStateFolder() {
    Path folder;
    try {
      folder = Files.createTempDirectory("streamform-state-");
    } catch (IOException e) {
      throw usage(
          "--state-backend-storage-path: none given, and no temporary folder could be made for"
              + " the embedded cluster's checkpoints ("
              + e.getMessage()
              + "): give one");
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try (Stream<Path> all = Files.walk(folder)) {
                    all.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
                  } catch (IOException | RuntimeException e) {
                    // best effort: it is in the temporary folder
                  }
                },
                "streamform-state-folder-cleanup"));
    return folder;
  }

  private static Path profileFile(String name) {
    return Home.dir().resolve(PROFILES).resolve(name + ".properties");
  }

  private static boolean isEmbedded(String master) {
    return master.equals("[local]") || master.equals("[auto]");
  }

  private Path jobJar() {
    if (jobJar != null) {
      if (!Files.isRegularFile(jobJar)) {
        throw usage("--job-jar " + jobJar + ": no such file");
      }
      return jobJar.toAbsolutePath();
    }
    PrintWriter err = command.commandLine().getErr();
    try {
      return JobJar.locate(Home.dir(), err);
    } catch (IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while building the job jar", e);
    }
  }

  /** A profile's runner key: Beam's class name (DirectRunner, FlinkRunner) or direct/flink. */
  private String runnerName(String value) {
    if (value == null) {
      return "direct";
    }
    switch (value.trim()) {
      case "DirectRunner":
      case "direct":
        return "direct";
      case "FlinkRunner":
      case "flink":
        return "flink";
      default:
        throw usage(
            "profile "
                + profile
                + ": runner must be DirectRunner or FlinkRunner, not '"
                + value
                + "'");
    }
  }

  private int profileInt(String key, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw usage(
          "profile " + profile + ": " + key + " must be a whole number, not '" + value + "'");
    }
  }

  private Map<String, String> loadProfile(String name) {
    Path dir = Home.dir().resolve(PROFILES);
    Path file = dir.resolve(name + ".properties");
    if (name.contains("/") || !Files.isRegularFile(file)) {
      throw usage(
          "unknown profile '"
              + name
              + "' (profiles in "
              + dir
              + ": "
              + String.join(", ", profileNames(dir))
              + ")");
    }
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      properties.load(in);
    } catch (IOException e) {
      throw usage("profile " + name + ": cannot read " + file + ": " + e.getMessage());
    }
    Map<String, String> values = new LinkedHashMap<>();
    properties.stringPropertyNames().stream()
        .sorted()
        .forEach(key -> values.put(key, properties.getProperty(key).trim()));
    return values;
  }

  static List<String> profileNames(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(f -> f.endsWith(".properties"))
          .map(f -> f.substring(0, f.length() - ".properties".length()))
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      return List.of();
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(command.commandLine(), message);
  }
}

package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;

/** Runner profiles from runners-config/profiles, and the options that override them. */
@Isolated // sets System.out/err or a system property every test of the JVM reads
class RunnerOptionsTest {
  @TempDir Path dir;

  @Command(name = "probe")
  static final class Probe implements Runnable {
    @Mixin RunnerOptions options;

    @Override
    public void run() {}
  }

  private static RunnerChoice choose(String... args) {
    Probe probe = new Probe();
    new CommandLine(probe).parseArgs(args);
    return probe.options.choice(master -> {}); // options only: no cluster listens here
  }

  private static FlinkPipelineOptions flink(RunnerChoice choice) {
    return choice.options().as(FlinkPipelineOptions.class);
  }

  @Test
  void withoutAProfileTheDirectRunner() {
    assertThat(choose().describe(), is("direct"));
    assertThat(choose("--runner", "flink").describe(), is("flink [local] parallelism 1"));
  }

  @Test
  void theFlinkLocalProfileSetsParallelismCheckpointingAndStateBackend() {
    RunnerChoice choice = choose("--profile", "flink-local");
    assertThat(choice.describe(), is("flink [local] parallelism 2"));
    assertThat(flink(choice).getCheckpointingInterval(), is(-1L));
    assertThat(flink(choice).getStateBackend(), is("filesystem"));
  }

  @Test
  void optionsOnTheCommandLineWinOverTheProfile() throws Exception {
    Path jar = Files.createFile(dir.resolve("job.jar"));
    RunnerChoice choice =
        choose(
            "--profile",
            "flink-cluster",
            "--parallelism",
            "1",
            "--flink-master",
            "127.0.0.1:18081",
            "--checkpointing-interval",
            "5000",
            "--job-jar",
            jar.toString());
    assertThat(choice.describe(), is("flink 127.0.0.1:18081 parallelism 1"));
    assertThat(flink(choice).getCheckpointingInterval(), is(5000L));
    assertThat(flink(choice).getFilesToStage(), contains(jar.toAbsolutePath().toString()));
    assertThat(choose("--profile", "flink-local", "--runner", "direct").describe(), is("direct"));
  }

  @Test
  void restartsAskFlinkToRestartAFailedJob() throws Exception {
    Path jar = Files.createFile(dir.resolve("job.jar"));
    RunnerChoice choice =
        choose("--profile", "flink-cluster", "--restarts", "3", "--job-jar", jar.toString());
    assertThat(flink(choice).getNumberOfExecutionRetries(), is(3));
    assertThat(
        flink(choose("--profile", "flink-cluster", "--job-jar", jar.toString()))
            .getNumberOfExecutionRetries(),
        is(-1)); // Beam's default: the cluster's restart strategy decides
    ParameterException e =
        assertThrows(
            ParameterException.class, () -> choose("--runner", "flink", "--restarts", "-1"));
    assertThat(e.getMessage(), is("--restarts must be 0 or more, not -1"));
  }

  @Test
  void aRestartDelayIsTheWaitBetweenAFailureAndTheRestart() throws Exception {
    Path jar = Files.createFile(dir.resolve("job.jar"));
    RunnerChoice choice =
        choose(
            "--profile",
            "flink-cluster",
            "--restarts",
            "3",
            "--restart-delay",
            "1000",
            "--job-jar",
            jar.toString());
    assertThat(flink(choice).getNumberOfExecutionRetries(), is(3));
    assertThat(flink(choice).getExecutionRetryDelay(), is(1000L));
    assertThat(
        flink(choose("--profile", "flink-cluster", "--restarts", "3", "--job-jar", jar.toString()))
            .getExecutionRetryDelay(),
        is(-1L)); // Beam's default: Flink's fixed delay of 10 s
    assertThat(
        refused("--runner", "flink", "--restart-delay", "-5"),
        is("--restart-delay must be 0 or more milliseconds, not -5"));
    assertThat(
        refused("--runner", "flink", "--restart-delay", "1000"),
        is(
            "--restart-delay 1000 waits between restarts, and this run asks for none: add"
                + " --restarts N"));
    assertThat(
        refused("--restart-delay", "1000"),
        is(
            "--restart-delay 1000 is a Flink option, and this run is on the DirectRunner: add"
                + " --runner flink, or leave out --restart-delay"));
  }

  /** The usage error that choosing with {@code args} gives. */
  private static String refused(String... args) {
    return assertThrows(ParameterException.class, () -> choose(args)).getMessage();
  }

  @Test
  void flinkOptionsForADirectRunnerRunAreRefusedNotIgnored() throws Exception {
    // each was dropped on the DirectRunner without a word (ADR 0087)
    assertThat(
        refused("--checkpointing-interval", "100", "--restarts", "3", "--state-backend", "rocksdb"),
        is(
            "--checkpointing-interval 100, --restarts 3 and --state-backend rocksdb are Flink"
                + " options, and this run is on the DirectRunner: add --runner flink, or leave"
                + " them out"));
    Path jar = Files.createFile(dir.resolve("job.jar"));
    assertThat(
        refused("--profile", "flink-cluster", "--runner", "direct", "--job-jar", jar.toString()),
        is(
            "--job-jar "
                + jar
                + " is a Flink option, and this run is on the DirectRunner: add --runner flink, or"
                + " leave out --job-jar"));
    assertThat(
        refused("--flink-master", "127.0.0.1:8081"),
        is(
            "--flink-master 127.0.0.1:8081 is a Flink option, and this run is on the DirectRunner:"
                + " add --runner flink, or leave out --flink-master"));
    // the embedded Flink runner stages no jar: only a cluster is sent one
    assertThat(
        refused("--runner", "flink", "--job-jar", jar.toString()),
        is(
            "--job-jar "
                + jar
                + " is staged to a Flink cluster, and this run is on the embedded Flink runner:"
                + " add --flink-master HOST:PORT (or --profile flink-cluster), or leave out"
                + " --job-jar"));
  }

  @Test
  void rocksdbIsRefusedWhereItsClassIsNotOnTheClassPathEvenForACluster() throws Exception {
    // Beam's Flink runner creates the state backend in this process, for a cluster too: it failed
    // each fixture with a bare "org.apache.flink.contrib.streaming.state.RocksDBStateBackend"
    String why =
        ": Flink's RocksDB state backend (flink-statebackend-rocksdb) is not on streamform's class"
            + " path, and Beam's Flink runner creates the state backend in this process, for a"
            + " cluster too: ";
    assertThat(
        refused("--runner", "flink", "--state-backend", "rocksdb"),
        is(
            "--state-backend rocksdb"
                + why
                + "use --state-backend filesystem (keyed state on the heap, checkpoints in the"
                + " storage path)"));
    assertThat(
        refused("--profile", "flink-local", "--state-backend", "rocksdb"),
        startsWith("--state-backend rocksdb" + why + "use --state-backend filesystem "));
    Path jar = Files.createFile(dir.resolve("job.jar"));
    Probe probe = new Probe();
    new CommandLine(probe)
        .parseArgs(
            "--profile",
            "flink-cluster",
            "--job-jar",
            jar.toString(),
            "--state-backend",
            "RocksDB");
    ParameterException e =
        assertThrows(
            ParameterException.class,
            () ->
                probe.options.choice(
                    master -> {
                      throw new AssertionError("refused only after connecting to " + master);
                    }));
    assertThat(e.getMessage(), startsWith("--state-backend RocksDB" + why));
    // a profile's own: the fix is said in the profile's terms
    Path profiles = Files.createDirectories(dir.resolve(RunnerOptions.PROFILES));
    Files.writeString(
        profiles.resolve("mine.properties"),
        "runner=FlinkRunner\nstateBackend=rocksdb\nstateBackendStoragePath=file:///tmp/x\n");
    String previous = System.getProperty(Home.PROPERTY);
    System.setProperty(Home.PROPERTY, dir.toString());
    try {
      assertThat(
          refused("--profile", "mine"),
          is(
              "profile mine: stateBackend=rocksdb"
                  + why
                  + "set stateBackend=filesystem in "
                  + profiles.resolve("mine.properties")
                  + ", or give --state-backend filesystem"));
    } finally {
      if (previous == null) {
        System.clearProperty(Home.PROPERTY);
      } else {
        System.setProperty(Home.PROPERTY, previous);
      }
    }
    assertThat(
        refused("--runner", "flink", "--state-backend", "memory"),
        is(
            "--state-backend must be filesystem or rocksdb, not 'memory' (filesystem keeps keyed"
                + " state in memory, on the heap)"));
  }

  @Test
  void aStateBackendTheDirectRunnerHasAnywayIsNotCalledAFlinkOptionToAdd() {
    // it said "is a Flink option ...: add --runner flink", and Flink then refused 'memory'
    assertThat(
        refused("--state-backend", "memory"),
        is(
            "--state-backend memory: this run is on the DirectRunner, which keeps all its state in"
                + " memory and takes no state backend: leave out --state-backend (on Flink,"
                + " --state-backend filesystem keeps keyed state in memory, on the heap)"));
    assertThat(
        refused("--state-backend", "hashmap", "--parallelism", "2"),
        startsWith("--state-backend hashmap: this run is on the DirectRunner, which keeps"));
    assertThat(
        refused("--state-backend", "disk"),
        is(
            "--state-backend disk is not a state backend (Flink's are filesystem and rocksdb), and"
                + " this run is on the DirectRunner, which takes none: leave out --state-backend,"
                + " or add --runner flink with --state-backend filesystem or rocksdb"));
  }

  @Test
  void filesystemWithoutAStoragePathOnEmbeddedFlinkCheckpointsToATemporaryFolderItNames() {
    // Beam failed each fixture: "State backend was set to 'filesystem' but no storage path was
    // provided."
    Probe probe = new Probe();
    StringWriter err = new StringWriter();
    CommandLine line = new CommandLine(probe);
    line.setErr(new PrintWriter(err, true));
    line.parseArgs("--runner", "flink", "--state-backend", "filesystem");
    String path = flink(probe.options.choice(master -> {})).getStateBackendStoragePath();
    assertThat(path, startsWith("file:"));
    Path folder = Path.of(java.net.URI.create(path));
    assertThat(Files.isDirectory(folder), is(true));
    assertThat(
        err.toString(),
        is(
            "state backend filesystem without a storage path: checkpoints of the embedded Flink"
                + " cluster go to "
                + folder
                + ", deleted when streamform ends (--state-backend-storage-path names another)\n"));
  }

  @Test
  void theStoragePathOptionWinsOverTheProfileAndAClusterNeedsOne() throws Exception {
    assertThat(
        flink(choose("--profile", "flink-local", "--state-backend-storage-path", "file:///x/y"))
            .getStateBackendStoragePath(),
        is("file:///x/y"));
    Path jar = Files.createFile(dir.resolve("job.jar"));
    assertThat(
        refused(
            "--runner",
            "flink",
            "--flink-master",
            "127.0.0.1:18081",
            "--job-jar",
            jar.toString(),
            "--state-backend",
            "filesystem"),
        is(
            "--state-backend filesystem on the Flink cluster at 127.0.0.1:18081 needs a folder"
                + " for its checkpoints that every TaskManager of that cluster can write: add"
                + " --state-backend-storage-path URI (e.g. file:///tmp/streamform/checkpoints"
                + " for a cluster on this machine, hdfs://... or s3://... for one elsewhere), or"
                + " set stateBackendStoragePath in the profile"));
    assertThat(
        flink(
                choose(
                    "--runner",
                    "flink",
                    "--flink-master",
                    "127.0.0.1:18081",
                    "--job-jar",
                    jar.toString(),
                    "--state-backend",
                    "filesystem",
                    "--state-backend-storage-path",
                    "file:///tmp/cp"))
            .getStateBackendStoragePath(),
        is("file:///tmp/cp"));
    assertThat(
        refused("--state-backend-storage-path", "file:///tmp/cp"),
        is(
            "--state-backend-storage-path file:///tmp/cp is a Flink option, and this run is on the"
                + " DirectRunner: add --runner flink, or leave out --state-backend-storage-path"));
  }

  /**
   * Beam's Flink runner reads the storage path only with a state backend: the path alone was
   * accepted and dropped (checkpoints stayed in the JobManager's memory). Refused with both options
   * named (ADR 0087), on the command line and in a profile.
   */
  @Test
  void aStoragePathWithoutAStateBackendIsRefusedNamingBoth() throws Exception {
    assertThat(
        refused("--runner", "flink", "--state-backend-storage-path", "file:///tmp/cp"),
        is(
            "--state-backend-storage-path file:///tmp/cp is where a state backend writes its"
                + " checkpoints, and this run sets no --state-backend (Beam's Flink runner reads"
                + " the path only with one): add --state-backend filesystem, or leave out"
                + " --state-backend-storage-path"));
    Path profiles = Files.createDirectories(dir.resolve(RunnerOptions.PROFILES));
    Files.writeString(
        profiles.resolve("pathonly.properties"),
        "runner=FlinkRunner\nstateBackendStoragePath=file:///tmp/x\n");
    String previous = System.getProperty(Home.PROPERTY);
    System.setProperty(Home.PROPERTY, dir.toString());
    try {
      assertThat(
          refused("--profile", "pathonly"),
          is(
              "profile pathonly: stateBackendStoragePath=file:///tmp/x is where a state backend"
                  + " writes its checkpoints, and this run sets no --state-backend (Beam's Flink"
                  + " runner reads the path only with one): add --state-backend filesystem, or"
                  + " set stateBackend=filesystem in "
                  + profiles.resolve("pathonly.properties")));
    } finally {
      if (previous == null) {
        System.clearProperty(Home.PROPERTY);
      } else {
        System.setProperty(Home.PROPERTY, previous);
      }
    }
  }

  @Test
  void anUnknownProfileIsOneLineListingTheProfiles() {
    ParameterException e =
        assertThrows(ParameterException.class, () -> choose("--profile", "flink"));
    assertThat(e.getMessage().startsWith("unknown profile 'flink' (profiles in "), is(true));
    assertThat(e.getMessage(), endsWith(": direct, flink-cluster, flink-local)"));
  }
}

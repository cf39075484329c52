package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.teststreams.fixture.RunnerChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;

/** Runner profiles from runners-config/profiles, and the options that override them. */
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
  void anUnknownProfileIsOneLineListingTheProfiles() {
    ParameterException e =
        assertThrows(ParameterException.class, () -> choose("--profile", "flink"));
    assertThat(e.getMessage().startsWith("unknown profile 'flink' (profiles in "), is(true));
    assertThat(e.getMessage(), endsWith(": direct, flink-cluster, flink-local)"));
  }
}

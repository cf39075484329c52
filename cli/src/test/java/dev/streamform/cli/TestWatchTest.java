package dev.streamform.cli;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 31: {@code streamform test --watch} runs the fixtures again in the same JVM when a file
 * below the project changes, says each run's time, survives a broken file, and stops when told.
 */
class TestWatchTest {
  private static final Path LATE_EVENT = Path.of("../test-streams/fixtures/time/late-event");
  private static final String WATCHING = "for changes (Ctrl-C to stop)";

  @Test
  void aChangedFixtureInASubfolderRunsAgainInTheSameJvmUntilStopped(@TempDir Path dir)
      throws Exception {
    Path project = copy(dir);
    Watch watch = Watch.start(project.toString());
    try {
      watch.awaitWatching(1);
      assertThat(watch.out(), containsString("1 fixture on direct: 1 passed, 0 failed"));
      assertThat(
          watch.out(),
          matchesPattern("(?s).*\\nrun 1 in \\d+\\.\\d\\d s \\(\\d+\\.\\d\\d s CPU\\)\\n.*"));

      // fixtures/ is a subfolder of the watched project folder
      Path fixture = project.resolve("fixtures/late_event.yml");
      Files.writeString(
          fixture,
          Files.readString(fixture).replace("total_spend: 31 }", "total_spend: 32 }")); // now wrong
      watch.awaitOut("run 2 in ");
      String second = watch.out().substring(watch.out().indexOf("run 1 in"));
      assertThat(second, containsString("1 fixture on direct: 0 passed, 1 failed"));
      assertThat(
          second,
          matchesPattern("(?s).*\\nrun 2 in \\d+\\.\\d\\d s \\(\\d+\\.\\d\\d s CPU\\)\\n.*"));
      assertThat(
          watch.err(),
          matchesPattern("(?s).*run 2 after a change to \\S*fixtures/late_event.yml\\n.*"));
    } finally {
      watch.stop();
    }
    assertThat("the watch ended when stopped", watch.thread.isAlive(), is(false));
    assertThat(watch.status.get(), is(0)); // the first run's status: it passed
  }

  /**
   * A save through a temporary file renamed over the fixture (sed -i, many editors): the run names
   * the fixture, not the temporary file that no longer exists.
   */
  @Test
  void aSaveThroughATemporaryFileNamesOnlyTheFixture(@TempDir Path dir) throws Exception {
    Path project = copy(dir);
    Path fixture = project.resolve("fixtures/late_event.yml");
    Watch watch = Watch.start(project.toString());
    try {
      watch.awaitWatching(1);
      Path scratch = project.resolve("fixtures/sedAb12Cd");
      Files.writeString(scratch, Files.readString(fixture) + "# saved\n");
      Files.move(scratch, fixture, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      watch.awaitOut("run 2 in ");
      assertThat(
          watch.err(),
          matchesPattern("(?s).*run 2 after a change to \\S*fixtures/late_event.yml\\n.*"));
      assertThat(watch.err(), not(containsString("sedAb12Cd")));
    } finally {
      watch.stop();
    }
  }

  /**
   * A fixture given as a file is watched with its project: a change to the model runs it again
   * (found by a read-only audit of the test runner: only fixtures/ was watched, and an edited model
   * started no run).
   */
  @Test
  void aFixtureGivenAsAFileRunsAgainWhenItsModelChanges(@TempDir Path dir) throws Exception {
    Path project = copy(dir);
    Watch watch = Watch.start(project.resolve("fixtures/late_event.yml").toString());
    try {
      watch.awaitWatching(1);
      Path sql = project.resolve("models/customer_metrics.sql");
      Files.writeString(sql, Files.readString(sql) + "\n-- edited\n");
      watch.awaitOut("run 2 in ");
      assertThat(
          watch.err(),
          matchesPattern("(?s).*run 2 after a change to \\S*models/customer_metrics.sql\\n.*"));
    } finally {
      watch.stop();
    }
  }

  @Test
  void aBrokenFixtureIsReportedAtItsLineAndTheWatchGoesOn(@TempDir Path dir) throws Exception {
    Path project = copy(dir);
    Path fixture = project.resolve("fixtures/late_event.yml");
    String good = Files.readString(fixture);
    Watch watch = Watch.start(project.toString());
    try {
      watch.awaitWatching(1);
      Files.writeString(fixture, good.replace("10:10:00Z\" }", "10:10:00Z\"")); // unclosed {
      watch.awaitOut("run 2 in ");
      watch.awaitWatching(2);
      assertThat(watch.out(), containsString("fixtures/late_event.yml:8: malformed YAML"));

      Files.writeString(fixture, good);
      watch.awaitOut("run 3 in ");
      String third = watch.out().substring(watch.out().indexOf("run 2 in"));
      assertThat(third, containsString("1 fixture on direct: 1 passed, 0 failed"));
      assertThat(watch.err(), not(containsString("Exception")));
    } finally {
      watch.stop();
    }
    assertThat(watch.thread.isAlive(), is(false));
  }

  @Test
  void theReportARunWritesBelowTheProjectDoesNotStartTheNextRun(@TempDir Path dir)
      throws Exception {
    Path project = copy(dir);
    Path report = project.resolve("report.html");
    Watch watch = Watch.start("--report", report.toString(), project.toString());
    try {
      watch.awaitWatching(1);
      Path fixture = project.resolve("fixtures/late_event.yml");
      Files.writeString(fixture, Files.readString(fixture) + "\n# touched\n");
      watch.awaitOut("run 2 in ");
      // run 2 rewrote report.html in the watched folder: that alone must not start run 3
      await("no third run")
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !watch.err().contains("run 3 after a change"));
    } finally {
      watch.stop();
    }
    assertThat(Files.exists(report), is(true));
  }

  /**
   * A project given through a symbolic link, with its report named by its real path and a link
   * inside it back to itself: the watch follows the link (the project's three folders, the loop not
   * walked twice), a changed fixture runs again, and the report the run writes, seen through the
   * link, starts no run. Before, the walk did not follow links: it watched 1 folder, missed every
   * change, and a change at the top re-ran endlessly on its own report (review of how results are
   * reported, finding 2).
   */
  @Test
  void aProjectGivenThroughALinkIsWatchedAndItsReportByItsRealPathStartsNoRun(@TempDir Path dir)
      throws Exception {
    Path project = copy(dir);
    Path link = Files.createSymbolicLink(dir.resolve("link"), project);
    Files.createSymbolicLink(project.resolve("loop"), project);
    Path report = project.resolve("report.html");
    Watch watch = Watch.start("--report", report.toString(), link.toString());
    try {
      watch.awaitWatching(1);
      assertThat(watch.err(), containsString("watching 3 folders " + WATCHING));
      Path fixture = project.resolve("fixtures/late_event.yml");
      Files.writeString(fixture, Files.readString(fixture) + "\n# touched\n");
      watch.awaitOut("run 2 in ");
      await("no third run")
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !watch.err().contains("run 3 after a change"));
    } finally {
      watch.stop();
    }
  }

  /** A copy of the late-event seed project in {@code dir}. */
  private static Path copy(Path dir) throws Exception {
    Path project = dir.resolve("late-event");
    try (Stream<Path> files = Files.walk(LATE_EVENT)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path to = project.resolve(LATE_EVENT.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    return project;
  }

  /**
   * Ctrl-C (SIGINT) ends a watch in a JVM of its own with the first run's status, here 1 (its
   * fixture fails), not 130; SIGTERM still ends it at once (143).
   */
  @Test
  void ctrlCEndsTheWatchWithTheFirstRunsStatusAndSigtermStillStopsIt(@TempDir Path dir)
      throws Exception {
    Path project = copy(dir);
    Path fixture = project.resolve("fixtures/late_event.yml");
    Files.writeString(
        fixture, Files.readString(fixture).replace("total_spend: 31 }", "total_spend: 32 }"));
    Process interrupted = watchInAJvm(project, dir.resolve("int.log"));
    Process terminated = watchInAJvm(project, dir.resolve("term.log"));
    try {
      awaitWatching(interrupted, dir.resolve("int.log"));
      new ProcessBuilder("kill", "-INT", String.valueOf(interrupted.pid()))
          .inheritIO()
          .start()
          .waitFor();
      assertThat(
          "ended after Ctrl-C",
          interrupted.waitFor(60, java.util.concurrent.TimeUnit.SECONDS),
          is(true));
      String log = Files.readString(dir.resolve("int.log"));
      assertThat(log, interrupted.exitValue(), is(1));
      assertThat(log, containsString("1 fixture on direct: 0 passed, 1 failed"));
      assertThat(
          log,
          containsString(
              "streamform test: stopping after Ctrl-C with the first run's status 1 (Ctrl-C again"
                  + " to stop at once)"));

      awaitWatching(terminated, dir.resolve("term.log"));
      terminated.destroy(); // SIGTERM
      assertThat(
          "ended after SIGTERM",
          terminated.waitFor(60, java.util.concurrent.TimeUnit.SECONDS),
          is(true));
      assertThat(terminated.exitValue(), is(143));
    } finally {
      interrupted.destroyForcibly();
      terminated.destroyForcibly();
    }
  }

  /**
   * After the first Ctrl-C the handler it replaced is back, so a second Ctrl-C ends the JVM at
   * once, as it did before the watch.
   */
  @Test
  void aSecondCtrlCMeetsTheJvmsOwnHandler() throws Exception {
    CountDownLatch stop = new CountDownLatch(1);
    StringWriter err = new StringWriter();
    WatchInterrupt ctrlC = WatchInterrupt.install(stop, new PrintWriter(err, true), 1);
    assertThat("SIGINT can be handled in this JVM", ctrlC != null, is(true));
    sun.misc.SignalHandler probe = signal -> {};
    try {
      sun.misc.Signal.raise(WatchInterrupt.INT);
      assertThat(
          "the first Ctrl-C stopped the watch",
          stop.await(10, java.util.concurrent.TimeUnit.SECONDS),
          is(true));
      assertThat(err.toString(), containsString("first run's status 1"));
      // what a second Ctrl-C would meet: the handler there before the watch
      sun.misc.SignalHandler now = sun.misc.Signal.handle(WatchInterrupt.INT, probe);
      sun.misc.Signal.handle(WatchInterrupt.INT, now);
      // the JDK wraps a handler it hands back, so compare kinds; the watch's own comes back as is
      assertThat("not the watch's handler", now == ctrlC.handler(), is(false));
      assertThat(now.getClass().getName(), is(ctrlC.previous().getClass().getName()));
    } finally {
      ctrlC.close();
    }
  }

  /**
   * {@code streamform test PROJECT --watch} in a JVM of its own, stdout and stderr to {@code log}.
   */
  private static Process watchInAJvm(Path project, Path log) throws Exception {
    return new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            // C1 only: a short-lived JVM starts on about half the CPU
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            Streamform.class.getName(),
            "test",
            project.toString(),
            "--watch",
            "--color",
            "never")
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void awaitWatching(Process p, Path log) {
    await("the watch in a JVM of its own")
        .atMost(Duration.ofMinutes(2))
        .until(() -> !p.isAlive() || Files.readString(log).contains(WATCHING));
    assertThat(readQuietly(log), p.isAlive(), is(true));
  }

  private static String readQuietly(Path log) {
    try {
      return Files.readString(log);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  /** {@code streamform test --watch ARGS} in a thread of its own, with a stop of its own. */
  private record Watch(
      Thread thread,
      CountDownLatch stopSignal,
      StringWriter outText,
      StringWriter errText,
      AtomicInteger status) {

    static Watch start(String... args) {
      CountDownLatch stop = new CountDownLatch(1);
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      AtomicInteger status = new AtomicInteger(-1);
      CommandLine.IFactory factory =
          new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
              return type == TestCommand.class
                  ? type.cast(new TestCommand(stop))
                  : CommandLine.defaultFactory().create(type);
            }
          };
      List<String> all = new ArrayList<>(List.of("test", "--watch", "--color", "never"));
      all.addAll(List.of(args));
      Thread thread =
          new Thread(
              () ->
                  status.set(
                      Streamform.run(
                          factory,
                          new PrintWriter(out, true),
                          new PrintWriter(err, true),
                          all.toArray(String[]::new))));
      thread.start();
      return new Watch(thread, stop, out, err, status);
    }

    String out() {
      return outText.toString();
    }

    String err() {
      return errText.toString();
    }

    /** Waits until the watch has said it is watching {@code times} times. */
    void awaitWatching(int times) {
      awaitOr("the watch, waiting for change " + times, () -> watching() >= times);
    }

    void awaitOut(String text) {
      awaitOr("'" + text + "' on stdout", () -> out().contains(text));
    }

    private int watching() {
      return err().split(java.util.regex.Pattern.quote(WATCHING), -1).length - 1;
    }

    /** Waits for {@code condition}; a watch that ended first fails at once, showing its output. */
    private void awaitOr(String what, java.util.function.BooleanSupplier condition) {
      await(what)
          .atMost(Duration.ofMinutes(2))
          .until(() -> condition.getAsBoolean() || !thread.isAlive());
      assertThat(
          what
              + "; the watch ended with status "
              + status
              + "\nstdout:\n"
              + out()
              + "\nstderr:\n"
              + err(),
          condition.getAsBoolean(),
          is(true));
    }

    void stop() throws InterruptedException {
      stopSignal.countDown();
      thread.join(Duration.ofSeconds(30).toMillis());
    }
  }
}

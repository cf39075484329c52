package dev.streamform.cli;

import static dev.streamform.sink.Revisions.revision;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerWriter;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.transforms.windows.WindowRevision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code streamform dispatch} process killed with SIGKILL ({@link Process#destroyForcibly})
 * at the two points docs/semantics.md §10 cares about, then restarted: between PREPARED and
 * DISPATCHING (the process is blocked inside its claim transaction, on a table lock this test
 * holds), and between DISPATCHING and DONE (the provider has the request and is slow to answer).
 * Each ends with the ledger's state as expected and "provider-side effects per key <= 1".
 */
class DispatcherKillTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @TempDir Path dir;
  private String url;
  private HikariDataSource pool;
  private LocalProviderServer provider;
  private Path project;
  private final List<Process> processes = new ArrayList<>();

  @BeforeEach
  void fresh() throws Exception {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 3, 2_000);
    provider = LocalProviderServer.start(0);
    // a second delivery of a key must show as a second effect, not be deduplicated away
    provider.dedupe(false);
    project = EffectsProject.copy(dir, provider);
    List<EffectRule> rules = EffectsProject.rules(project);
    new LedgerWriter(pool, Duration.ofSeconds(10), rules)
        .write(List.<WindowRevision>of(revision(7, 10, 1, "1200")));
  }

  @AfterEach
  void close() {
    processes.forEach(Process::destroyForcibly);
    provider.close();
    pool.close();
  }

  /** {@code streamform dispatch} in a JVM of its own, output to a file. */
  private Process dispatcher(String name, String... more) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                // C1 only: a short-lived JVM starts on about half the CPU
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty(
                    "surefire.test.class.path", System.getProperty("java.class.path")),
                Streamform.class.getName(),
                "dispatch",
                project.toString(),
                "--model",
                "hourly_revenue",
                "--jdbc-url",
                url,
                "--jdbc-user",
                "postgres",
                "--name",
                name,
                "--interval",
                "200ms"));
    command.addAll(List.of(more));
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile())
            .start();
    processes.add(p);
    return p;
  }

  private String state() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT state FROM streamform.effect WHERE model = 'hourly_revenue'")) {
      r.next();
      return r.getString(1);
    }
  }

  /**
   * Waits for the effect's state, failing with the dispatcher's own output when it does not come.
   */
  private void awaitState(String expected, String dispatcher) throws Exception {
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> state().equals(expected));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "effect still "
              + state()
              + ", not "
              + expected
              + "; dispatcher "
              + dispatcher
              + " printed:\n"
              + Files.readString(dir.resolve(dispatcher + ".log")),
          e);
    }
  }

  /**
   * Waits until the dispatcher printed {@code text} (a looping dispatcher prints the passes that
   * did something).
   */
  private void awaitOutput(String dispatcher, String text) throws Exception {
    Path log = dir.resolve(dispatcher + ".log");
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> Files.readString(log).contains(text));
  }

  private static String key() {
    return EffectIdentity.effectKey("reward", revision(7, 10, 1, "0").logicalWindowId(), 7L);
  }

  private void kill(Process p) throws Exception {
    p.destroyForcibly(); // SIGKILL: no shutdown hook, no rollback by the process itself
    assertThat(p.waitFor(10, TimeUnit.SECONDS), is(true));
    assertThat("killed by SIGKILL", p.exitValue(), is(137));
  }

  private void assertAtMostOncePerKey() {
    for (Map.Entry<String, Integer> e : provider.appliedPerKey().entrySet()) {
      assertThat("provider-side effects for key " + e.getKey(), e.getValue(), lessThanOrEqualTo(1));
    }
    for (Map.Entry<String, Integer> e : provider.requestsPerKey().entrySet()) {
      assertThat("requests for key " + e.getKey(), e.getValue(), lessThanOrEqualTo(1));
    }
  }

  @Test
  void killedBetweenPreparedAndDispatchingThenRestartedDeliversOnce() throws Exception {
    Process first;
    try (Connection lock = pool.getConnection()) {
      lock.setAutoCommit(false);
      try (Statement s = lock.createStatement()) {
        // the claim takes the canonical alias FOR SHARE first (docs/decisions/0162), to confirm
        // the generation under it: it waits here, inside its transaction, with the effect still
        // PREPARED
        s.execute("LOCK TABLE streamform.canonical_alias IN ACCESS EXCLUSIVE MODE");
      }
      first = dispatcher("first");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                try (Connection c = pool.getConnection();
                    Statement s = c.createStatement();
                    ResultSet r =
                        s.executeQuery(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                + " AND query LIKE '%FROM streamform.canonical_alias WHERE"
                                + " model = $1 FOR SHARE%'")) {
                  r.next();
                  return r.getInt(1) == 1;
                }
              });
      kill(first);
      lock.rollback();
    }
    assertThat(state(), is("PREPARED"));
    assertThat(provider.requests(), is(0));

    Process second = dispatcher("second");
    awaitState("DONE", "second");
    awaitOutput("second", "1 claimed, 1 done");
    kill(second);
    assertThat(provider.applied(key()), is(1));
    assertAtMostOncePerKey();
  }

  @Test
  void killedBetweenDispatchingAndDoneThenRestartedResolvesByReceiptNeverTwice() throws Exception {
    provider.mode(LocalProviderServer.Mode.TIMEOUT);
    provider.hang(Duration.ofSeconds(3));
    Process first = dispatcher("first", "--timeout", "30s");
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> provider.requests() == 1);
    assertThat(state(), is("DISPATCHING"));
    kill(first);
    assertThat(state(), is("DISPATCHING"));
    // the provider finishes the request it had: the effect happened, its answer went nowhere
    await().atMost(Duration.ofSeconds(30)).until(() -> provider.applied(key()) == 1);

    provider.mode(LocalProviderServer.Mode.OK);
    Process second = dispatcher("second", "--lease", "2s", "--timeout", "1s");
    awaitState("DONE", "second");
    awaitOutput("second", "1 resolved by receipt");
    kill(second);
    assertThat("resolved by the receipt query, not delivered again", provider.requests(), is(1));
    assertThat(provider.applied(key()), is(1));
    assertAtMostOncePerKey();
  }
}

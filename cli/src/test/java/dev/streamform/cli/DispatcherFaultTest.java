package dev.streamform.cli;

import static dev.streamform.sink.Revisions.revision;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerWriter;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.transforms.windows.WindowRevision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults really injected into live {@code streamform dispatch} processes (issue 28), against the
 * local provider in its no-dedupe mode, so a second delivery of a key is a second request and a
 * second effect: two dispatchers over one ledger with a provider slower than their lease allows for
 * a batch; the database refusing every connection between a delivery and its outcome write; a
 * credential from the environment.
 */
class DispatcherFaultTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @TempDir Path dir;
  private String url;
  private HikariDataSource pool;
  private LocalProviderServer provider;
  private final List<Process> processes = new ArrayList<>();

  @BeforeEach
  void fresh() throws Exception {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 3, 2_000);
    provider = LocalProviderServer.start(0);
    provider.dedupe(false);
  }

  @AfterEach
  void close() {
    processes.forEach(Process::destroyForcibly);
    provider.close();
    pool.close();
  }

  private Path project(boolean receipts, String more) throws Exception {
    Path project =
        EffectsProject.copy(
            dir,
            "{kind: webhook, url: \""
                + provider.url()
                + "\", idempotency: key,"
                + " receipts: "
                + receipts
                + more
                + "}");
    return project;
  }

  private void write(Path project, WindowRevision... revisions) throws Exception {
    new LedgerWriter(pool, Duration.ofSeconds(10), EffectsProject.rules(project))
        .write(List.of(revisions));
  }

  /** {@code streamform dispatch} in a JVM of its own, output to {@code <name>.log}. */
  private Process dispatcher(Path project, String name, Map<String, String> env, String... more)
      throws Exception {
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
                name));
    command.addAll(List.of(more));
    ProcessBuilder b =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile());
    b.environment().putAll(env);
    Process p = b.start();
    processes.add(p);
    return p;
  }

  private String log(String name) throws Exception {
    return Files.readString(dir.resolve(name + ".log"));
  }

  private Map<String, String> states() throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT effect_key, state FROM streamform.effect")) {
      while (r.next()) {
        out.put(r.getString(1), r.getString(2));
      }
      c.commit();
    }
    return out;
  }

  private static String key(long merchant) {
    return EffectIdentity.effectKey(
        "reward", revision(merchant, 10, 1, "0").logicalWindowId(), merchant);
  }

  @Test
  void twoDispatcherProcessesAndASlowProviderSendEachKeyExactlyOnce() throws Exception {
    Path project = project(true, "");
    int effects = 6;
    List<WindowRevision> revisions = new ArrayList<>();
    for (int m = 1; m <= effects; m++) {
      revisions.add(revision(m, 10, 1, String.valueOf(1000 + m)));
    }
    write(project, revisions.toArray(WindowRevision[]::new));
    // each delivery takes 1 s: six in a row outlast a 2 s lease
    provider.mode(LocalProviderServer.Mode.TIMEOUT);
    provider.hang(Duration.ofSeconds(1));
    String[] options = {"--interval", "200ms", "--timeout", "1500ms", "--lease", "2s"};
    dispatcher(project, "a", Map.of(), options);
    dispatcher(project, "b", Map.of(), options);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  states().values().stream().allMatch("DONE"::equals)
                      && provider.requests() >= effects);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // reported below, with the requests per key first
    }
    Thread.sleep(1_500); // a delivery still on its way would show up as a second request
    Map<String, Integer> requests = provider.requestsPerKey();
    System.out.println(
        "two dispatcher processes, "
            + effects
            + " effects, provider 1 s per delivery, lease 2 s:"
            + " requests per key "
            + requests.values()
            + ", applied per key "
            + provider.appliedPerKey().values()
            + ", states "
            + states().values());
    Map<String, Integer> expected = new TreeMap<>();
    for (int m = 1; m <= effects; m++) {
      expected.put(key(m), 1);
    }
    assertThat(
        "requests per key\na printed:\n" + log("a") + "\nb printed:\n" + log("b"),
        requests,
        equalTo(expected));
    assertThat(provider.appliedPerKey(), equalTo(expected));
    assertThat(states().values().stream().distinct().toList(), equalTo(List.of("DONE")));
  }

  @Test
  void aDatabaseOutageBetweenDeliveryAndOutcomeLeavesTheEffectDoneNotUnknown() throws Exception {
    // no receipts: an effect left UNKNOWN here would stay UNKNOWN for good
    Path project = project(false, "");
    write(project, revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.TIMEOUT);
    provider.hang(Duration.ofSeconds(2));
    Process d =
        dispatcher(
            project, "d", Map.of(), "--interval", "200ms", "--timeout", "30s", "--lease", "2m");
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> provider.requests() == 1);
    // the provider holds the request; the database goes away before its answer comes
    String database = url.substring(url.lastIndexOf('/') + 1).replaceAll("\\?.*", "");
    String admin = url.substring(0, url.lastIndexOf('/') + 1) + "postgres";
    long outage = System.nanoTime();
    try (Connection c = DriverManager.getConnection(admin, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS false");
      s.executeQuery(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
              + database
              + "'");
      await().atMost(Duration.ofSeconds(30)).until(() -> provider.applied(key(7)) == 1);
      // longer than the dispatcher's pool waits for a connection (10 s): its outcome write fails
      Thread.sleep(13_000);
      s.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS true");
    }
    long down = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outage);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> "DONE".equals(states().get(key(7))));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "effect "
              + states().get(key(7))
              + " after a "
              + down
              + " ms outage, not DONE;"
              + " dispatcher alive: "
              + d.isAlive()
              + "; it printed:\n"
              + log("d"),
          e);
    }
    System.out.println(
        "database refused connections for "
            + down
            + " ms between the delivery and its outcome:"
            + " effect "
            + states().get(key(7))
            + ", requests "
            + provider.requests(key(7))
            + ", dispatcher alive "
            + d.isAlive());
    assertThat(provider.requests(key(7)), is(1));
    assertThat(provider.applied(key(7)), is(1));
    assertThat("the dispatcher kept running\n" + log("d"), d.isAlive(), is(true));
    // the pass prints its report after it has written DONE (and read the idle counts): the line
    // may follow the state by a moment, so it is awaited, not read once
    java.util.regex.Pattern said =
        java.util.regex.Pattern.compile(
            " (1 outcome write failed \\(database unavailable\\) and was tried again"
                + "|[0-9]+ outcome writes failed \\(database unavailable\\) and were tried again)");
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> said.matcher(log("d")).find());
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("no line matching " + said + " in:\n" + log("d"), e);
    }
  }

  @Test
  void aCredentialFromTheEnvironmentIsSentAndNeverStored() throws Exception {
    String secret = "Bearer s3cret-" + System.nanoTime();
    provider.requireAuthorization(secret);
    Path project = project(true, ", authorization_env: REWARDS_AUTHORIZATION");
    write(project, revision(7, 10, 1, "1200"));
    Process d = dispatcher(project, "d", Map.of("REWARDS_AUTHORIZATION", secret), "--once");
    assertThat(d.waitFor(60, TimeUnit.SECONDS), is(true));
    assertThat(log("d"), d.exitValue(), is(0));
    assertThat(log("d"), states().get(key(7)), is("DONE"));
    assertThat(provider.authorizations(), equalTo(List.of(secret)));
    assertThat(
        log("d"), containsString("Authorization from environment variable REWARDS_AUTHORIZATION"));
    assertThat(log("d"), not(containsString("s3cret")));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT (SELECT count(*) FROM streamform.effect e WHERE e::text LIKE '%s3cret%') +"
                    + " (SELECT count(*) FROM streamform.effect_transition t WHERE t::text LIKE"
                    + " '%s3cret%')")) {
      r.next();
      assertThat("ledger rows holding the credential", r.getInt(1), is(0));
      c.commit();
    }
    // without it in the environment: nothing is sent, and the dispatcher says why
    write(project, revision(8, 10, 1, "1300"));
    // in this JVM, whose environment has no REWARDS_AUTHORIZATION: no second JVM to start
    assertThat(System.getenv("REWARDS_AUTHORIZATION"), nullValue());
    java.io.StringWriter withoutOut = new java.io.StringWriter();
    java.io.PrintWriter withoutTerminal = new java.io.PrintWriter(withoutOut, true);
    int without =
        Streamform.run(
            withoutTerminal,
            withoutTerminal,
            "dispatch",
            project.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres",
            "--name",
            "without",
            "--once");
    assertThat(withoutOut.toString(), without, is(1));
    assertThat(
        withoutOut.toString(),
        containsString(
            "streamform dispatch: effect reward: the environment variable REWARDS_AUTHORIZATION"
                + " (the provider's authorization) is not set"));
    assertThat(provider.requests(), is(1));
  }
}

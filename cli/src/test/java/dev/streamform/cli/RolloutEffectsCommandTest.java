package dev.streamform.cli;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerWriter;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.transforms.windows.WindowRevision;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rollout you can stop, on the command line (issue 33): {@code effects pause|resume}, {@code
 * dispatch} saying it is paused, {@code alias set --pause-effects}, and effects that follow {@code
 * alias set}. The hourly revenue project rewards {@code revenue >= 1000}; the local provider does
 * not dedupe, so its request counts show any second effect.
 */
class RolloutEffectsCommandTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private String url;
  private HikariDataSource pool;
  private LocalProviderServer provider;
  private Path project;

  @BeforeEach
  void fresh() throws Exception {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
    provider = LocalProviderServer.start(0);
    provider.dedupe(false);
    project = EffectsProject.copy(dir, provider);
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private int command(String command, String... more) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(
        List.of(
            project.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres"));
    args.addAll(List.of(more));
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  /** As streamform run --jdbc-url: the canonical generation's writer prepares effects. */
  private void live(WindowRevision... records) throws Exception {
    new LedgerWriter(pool, Duration.ofSeconds(10), EffectsProject.rules(project))
        .write(List.of(records));
  }

  private static String keyOf(long merchant) {
    return EffectIdentity.effectKey(
        "reward", revision(merchant, 10, 1, "0").logicalWindowId(), merchant);
  }

  @Test
  void pauseStopsDispatchWhichSaysSoShowShowsItAndResumeDeliversEachEffectOnce() throws Exception {
    live(revision(7, 10, 1, "1200"), revision(8, 10, 1, "1500"));
    assertThat(command("effects pause", "--by", "alice", "--reason", "incident 12"), is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: effects paused: dispatchers claim nothing from their next claim on; 0"
                + " effects in flight (DISPATCHING) finish and are recorded\n"));

    assertThat(command("dispatch", "--once", "--name", "d1"), is(0));
    assertThat(out.toString(), startsWith("pass 1: effects paused (since "));
    assertThat(
        out.toString(), containsString(" by alice: incident 12): nothing new claimed; 0 claimed"));
    assertThat(provider.requests(), is(0));

    assertThat(command("effects show"), is(0));
    assertThat(out.toString(), containsString("\neffects paused since "));
    assertThat(out.toString(), containsString("by alice: incident 12 (dispatchers claim nothing"));

    assertThat(command("effects resume", "--by", "bob"), is(0));
    assertThat(out.toString(), startsWith("hourly_revenue: effects resumed (paused since "));
    assertThat(command("effects show"), is(0));
    assertThat(out.toString(), not(containsString("effects paused")));
    assertThat(command("dispatch", "--once", "--name", "d1"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 2 claimed, 2 done"));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(provider.requests(keyOf(8)), is(1));
    assertThat(command("effects verify"), is(0));
  }

  @Test
  void aliasSetEvaluatesTheRulesOnTheNewCanonicalValuesAndPauseEffectsStopsTheirDispatch()
      throws Exception {
    // generation 1: merchant 7's reward delivered; generation 2 (shadow): 7 falls to 900, 8 rises
    live(revision(7, 10, 1, "1200"), revision(8, 10, 1, "500"));
    assertThat(command("dispatch", "--once"), is(0));
    LedgerWriter.shadow(pool, Duration.ofSeconds(10))
        .write(List.of(revision(7, 10, 1, "900", 2), revision(8, 10, 1, "1100", 2)));

    assertThat(
        command("alias set", "--generation", "2", "--pause-effects", "--reason", "canary"), is(0));
    assertThat(
        out.toString(),
        containsString(
            "effects evaluated on the canonical values: 1 prepared, 0 following the new values, 0"
                + " cancelled, 1 compensation for a person\n"
                + "hourly_revenue: effects paused: dispatchers claim nothing"));
    assertThat(command("dispatch", "--once"), is(0));
    assertThat(out.toString(), startsWith("pass 1: effects paused ("));
    assertThat(provider.requests(keyOf(8)), is(0));

    // the operator rolls back, still paused: merchant 8's reward is cancelled before it was sent,
    // merchant 7's is as delivered (its compensation stays for a person)
    assertThat(command("alias set", "--generation", "1"), is(0));
    assertThat(
        out.toString(),
        containsString(
            "effects evaluated on the canonical values: 0 prepared, 0 following the new values, 1"
                + " cancelled, 0 compensations for a person\n"));
    assertThat(command("effects resume"), is(0));
    assertThat(command("dispatch", "--once"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 0 claimed"));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(provider.requests(keyOf(8)), is(0));
    assertThat(command("effects show"), is(0));
    assertThat(out.toString(), startsWith("hourly_revenue: 2 effects, 1 compensation\n"));
    assertThat(command("effects verify"), is(0));
  }

  /** The documented key hash, computed independently of the database (see alias set --help). */
  private static int bucket(long merchant) throws Exception {
    byte[] sha =
        java.security.MessageDigest.getInstance("SHA-256")
            .digest(
                ("{\"merchant_id\": " + merchant + "}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return (int) ((java.nio.ByteBuffer.wrap(sha, 0, 4).getInt() & 0xffffffffL) % 10_000);
  }

  @Test
  void aCanaryShareSendsItsKeysToTheNewGenerationAndCompareReportsThemApart() throws Exception {
    List<WindowRevision> one = new ArrayList<>();
    List<WindowRevision> two = new ArrayList<>();
    List<Long> share = new ArrayList<>();
    for (long m = 1; m <= 40; m++) {
      one.add(revision(m, 10, 1, "500"));
      two.add(revision(m, 10, 1, "1500", 2));
      if (bucket(m) < 1_000) {
        share.add(m);
      }
    }
    live(one.toArray(WindowRevision[]::new));
    LedgerWriter.shadow(pool, Duration.ofSeconds(10)).write(two);

    assertThat(command("alias set", "--generation", "2", "--share", "10%"), is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: canary: 10% of keys (bucket < 1000 of 10000) read generation 2 — "
                + share.size()
                + " of 40 keys now; the others read generation 1\n"
                + "effects evaluated on the canonical values: "
                + share.size()
                + " prepared, 0 following the new values, 0 cancelled, 0 compensations for a"
                + " person\n"));
    assertThat(command("dispatch", "--once"), is(0));
    for (long m = 1; m <= 40; m++) {
      assertThat("merchant " + m, provider.requests(keyOf(m)), is(share.contains(m) ? 1 : 0));
    }

    List<String> args =
        List.of(
            "compare-generations",
            project.toString(),
            "--model",
            "hourly_revenue",
            "--from",
            "1",
            "--to",
            "2",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres");
    out.getBuffer().setLength(0);
    assertThat(
        Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new)),
        is(CompareGenerationsCommand.DIFFERENT));
    String report = out.toString();
    assertThat(report, containsString("\ncanary: 10% of keys (bucket < 1000 of 10000) read"));
    assertThat(
        report,
        containsString(
            "\ncanary keys: "
                + share.size()
                + " windows: 0 equal, "
                + share.size()
                + " different, 0 only in generation 1, 0 only in generation 2\n"));
    assertThat(
        report,
        containsString(
            "\nother keys: "
                + (40 - share.size())
                + " windows: 0 equal, "
                + (40 - share.size())
                + " different"));
    assertThat(report, containsString("\nall keys: 40 windows: 0 equal, 40 different"));
    assertThat(report, containsString("\n  merchant_id=" + share.get(0) + " ["));

    assertThat(command("alias set", "--generation", "2", "--share", "5"), is(2));
    assertThat(err.toString(), containsString("--share: a share is a percentage such as 5%"));

    // back to generation 1 for every key: the canary ends, and the line says so
    assertThat(command("alias set", "--generation", "1"), is(0));
    assertThat(
        out.toString(),
        containsString(
            "hourly_revenue: canonical generation 1 -> 1 (40 projections of generation 1); the"
                + " canary ended: 10% of keys (bucket < 1000 of 10000) read generation 2 before,"
                + " all keys read generation 1 now\n"));

    // a canary replaced by another generation's: the line says which one ended (found by a
    // read-only audit of rollout: the keys leaving generation 2 were not mentioned)
    assertThat(command("alias set", "--generation", "2", "--share", "10%"), is(0));
    out.getBuffer().setLength(0);
    assertThat(
        err.toString(),
        command("alias set", "--generation", "3", "--share", "20%", "--allow-empty"),
        is(0));
    assertThat(
        out.toString(),
        containsString(
            " keys now; the others read generation 1; the canary ended: 10% of keys (bucket < 1000"
                + " of 10000) read generation 2 before\n"));
  }

  /**
   * A pause in a database that has no ledger yet sets one up to hold it — a job not yet started is
   * paused from its first pass — and says so, since a job writing to another database would not see
   * it; a resume there changes nothing and creates nothing (found by a read-only audit of the
   * effects: both set a ledger up in any database named, silently).
   */
  @Test
  void aPauseSaysItSetUpTheLedgerAndAResumeWithoutOneCreatesNothing() throws Exception {
    assertThat(command("effects resume"), is(1));
    assertThat(
        err.toString(),
        containsString("streamform effects resume: no Streamform ledger in " + url));
    assertThat(
        err.toString(),
        containsString(" (streamform run --jdbc-url creates it): nothing is paused there\n"));
    try (var c = pool.getConnection();
        var rs = c.getMetaData().getTables(null, "streamform", null, new String[] {"TABLE"})) {
      assertThat("tables after the resume", rs.next(), is(false));
    }

    assertThat(command("effects pause"), is(0));
    assertThat(err.toString(), containsString("note: there was no Streamform ledger in " + url));
    assertThat(
        err.toString(),
        containsString(
            ": one was set up to hold the pause, which the model's dispatchers obey once its job"
                + " writes to this database\n"));
    assertThat(command("effects pause"), is(0));
    assertThat(err.toString(), not(containsString("there was no Streamform ledger")));
  }

  @Test
  void reasonWithoutPauseEffectsIsABadCommandLine() {
    assertThat(command("alias set", "--generation", "1", "--reason", "x"), is(2));
    assertThat(err.toString(), containsString("--reason is the reason of a pause"));
  }
}

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
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.transforms.windows.WindowRevision;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamform dispatch} and {@code streamform effects show|verify} as a user meets them: the
 * hourly revenue project with a declared reward, the module's test PostgreSQL, the local provider.
 */
class EffectsCommandTest {
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
    // a second delivery of a key must show as a second effect, not be deduplicated away
    provider.dedupe(false);
    project = EffectsProject.copy(dir, provider);
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  private int command(String command, Path at, String... more) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(
        List.of(
            at.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres"));
    args.addAll(List.of(more));
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return run(args.toArray(String[]::new));
  }

  /** Writes revisions as streamform run --jdbc-url would, with the project's declared rules. */
  private void write(WindowRevision... records) throws Exception {
    List<EffectRule> rules = EffectsProject.rules(project);
    new LedgerWriter(pool, Duration.ofSeconds(10), rules).write(List.of(records));
  }

  private static String keyOf(long merchant) {
    return EffectIdentity.effectKey(
        "reward", revision(merchant, 10, 1, "0").logicalWindowId(), merchant);
  }

  @Test
  void checkAcceptsTheDeclaredEffect() {
    assertThat(run("check", project.toString()), is(0));
  }

  @Test
  void dispatchOnceDeliversEachPreparedEffectOnceAndShowAndVerifySayIt() throws Exception {
    write(revision(7, 10, 1, "1200"), revision(8, 10, 1, "400"));
    assertThat(command("dispatch", project, "--once", "--name", "d1"), is(0));
    assertThat(
        out.toString(),
        is(
            "pass 1: 1 claimed, 1 done, 0 unknown, 0 not sent (prepared again), 0 waiting for their"
                + " canonical revision; 0 expired dispatches, 0 resolved by receipt, 0 delivered"
                + " again after a receipt query said never applied, 0 still unknown\n"));
    assertThat(
        err.toString(),
        is(
            "streamform dispatch: d1 for model hourly_revenue: [reward -> webhook "
                + provider.url()
                + " [idempotency: key, receipts: true]]\n"));
    assertThat(provider.applied(keyOf(7)), is(1));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(provider.requests(), is(1));

    assertThat(command("dispatch", project, "--once"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 0 claimed, 0 done,"));
    assertThat(provider.requests(), is(1));

    assertThat(command("effects show", project), is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: 1 effect, 0 compensations\n"
                + "  key           type    subject  window                revision  state  attempts"
                + "  receipt  last error\n"
                + "  "
                + keyOf(7).substring(0, 12)
                + "  reward  7        2026-08-30T10:00:00Z  g1 r1     DONE   1       "
                + "  rcpt-1   -\n"));

    assertThat(command("effects verify", project), is(0));
    assertThat(
        out.toString(),
        is(
            "1 effect: 1 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled;"
                + " 1 dispatch, 0 open compensations; 0 problems\n"));
  }

  @Test
  void showPrintsAReceiptEscapedAndALongOneShortened() throws Exception {
    write(revision(7, 10, 1, "1200"), revision(8, 10, 1, "1300"));
    assertThat(command("dispatch", project, "--once"), is(0));
    // receipts as a provider may answer them: a newline and a tab; 5 MB
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE streamform.effect SET receipt = 'rcpt-a' || chr(10) || 'second line' || chr(9)"
              + " || 'X' WHERE effect_key = '"
              + keyOf(7)
              + "'");
      s.executeUpdate(
          "UPDATE streamform.effect SET receipt = repeat('r', 5000000) WHERE effect_key = '"
              + keyOf(8)
              + "'");
      c.commit();
    }
    assertThat(command("effects show", project), is(0));
    String shown = out.toString();
    System.out.println(shown);
    // a heading, the table's header and one line per effect: the newline did not break a row
    assertThat(shown.lines().count(), is(4L));
    assertThat(shown, containsString("  \"rcpt-a\\nsecond line\\tX\"  "));
    assertThat(shown, containsString("rrrrr…(5000000 characters)…rrrrr"));
    assertThat(shown.length() < 2_000, is(true));
  }

  @Test
  void aLostResponseIsUnknownThenResolvedByReceiptNeverDeliveredTwice() throws Exception {
    write(revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.ACCEPT_THEN_DROP);
    assertThat(command("dispatch", project, "--once", "--timeout", "1s"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 1 claimed, 0 done, 1 unknown,"));
    assertThat(command("effects verify", project), is(0));
    assertThat(out.toString(), startsWith("1 effect: 0 done, 1 unknown,"));
    provider.mode(LocalProviderServer.Mode.OK);
    assertThat(command("dispatch", project, "--once"), is(0));
    assertThat(out.toString(), containsString(" 1 resolved by receipt,"));
    assertThat(provider.applied(keyOf(7)), is(1));
    assertThat(
        "resolved by the receipt query, not delivered again", provider.requests(keyOf(7)), is(1));
    assertThat(command("effects verify", project), is(0));
    assertThat(out.toString(), startsWith("1 effect: 1 done, 0 unknown,"));
  }

  @Test
  void aCorrectionBelowTheTargetAfterDoneIsACompensationForAPerson() throws Exception {
    write(revision(7, 10, 1, "1200"));
    assertThat(command("dispatch", project, "--once"), is(0));
    write(revision(7, 10, 2, "900"));
    assertThat(command("dispatch", project, "--once"), is(0));
    assertThat(provider.applied(keyOf(7)), is(1));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(command("effects show", project), is(0));
    String key = keyOf(7).substring(0, 12);
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: 1 effect, 1 compensation\n"
                + "  key           type    subject  window                revision  state  attempts"
                + "  receipt  last error\n"
                + "  "
                + key
                + "  reward  7        2026-08-30T10:00:00Z  g1 r1     DONE   1         rcpt-1   -\n"
                + "compensations (for a person: an open one records an effect that happened and"
                + " will not be repeated or undone, closed by streamform effects settle"
                + " --compensation ID --done; a closed one says who closed it and why):\n"
                + "  id  key           reason      by     effect was  closed\n"
                + "  1   "
                + key
                + "  rule_false  g1 r2  DONE        - (open)\n"));
    assertThat(command("effects verify", project), is(0));
    assertThat(out.toString(), containsString("; 1 dispatch, 1 open compensation; 0 problems\n"));
  }

  @Test
  void verifyPrintsEachProblemAndExitsOne() throws Exception {
    write(revision(7, 10, 1, "1200"));
    assertThat(command("dispatch", project, "--once"), is(0));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE streamform.effect SET payload_digest = repeat('0', 64)");
      c.commit();
    }
    assertThat(command("effects verify", project), is(1));
    assertThat(
        out.toString(),
        is(
            keyOf(7).substring(0, 12)
                + ": the payload digest does not recompute from the payload\n"
                + "1 effect: 1 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled; 1 dispatch,"
                + " 0 open compensations; 1 problem\n"));
  }

  /**
   * ADR 0161: verify names a claim whose record is not what the effect sent (the row changed as a
   * buggy dispatcher would have recorded it), and counts a claim with no record without flagging
   * it.
   */
  @Test
  void verifyChecksWhatEachClaimRecordedAndCountsClaimsWithoutARecord() throws Exception {
    write(revision(7, 10, 1, "1200"));
    write(revision(7, 10, 2, "1300"));
    assertThat(command("dispatch", project, "--once"), is(0));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE streamform.effect_transition SET confirmed_revision = 1");
      c.commit();
    }
    assertThat(command("effects verify", project), is(1));
    assertThat(
        out.toString(),
        is(
            keyOf(7).substring(0, 12)
                + " (window "
                + revision(7, 10, 1, "0").windowStart()
                + " "
                + revision(7, 10, 1, "0").logicalWindowId().substring(0, 12)
                + ", key {\"merchant_id\": 7}): attempt 1 confirmed generation 1 revision 1 (alias"
                + " version 1) but it sent generation 1 revision 2 (DONE)\n"
                + "1 effect: 1 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled; 1 dispatch,"
                + " 0 open compensations; 1 problem\n"));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE streamform.effect_transition SET confirmed_generation = NULL,"
              + " confirmed_revision = NULL, alias_version = NULL, attempt = NULL");
      c.commit();
    }
    assertThat(command("effects verify", project), is(0));
    assertThat(
        out.toString(),
        is(
            "1 effect: 1 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled; 1 dispatch,"
                + " 0 open compensations, 1 claim that cannot be checked (made before the ledger"
                + " recorded what a claim confirmed); 0 problems\n"));
  }

  /** Issue 28: a rule the sink could not evaluate is recorded, shown, and a problem for verify. */
  @Test
  void aRuleTheSinkCouldNotEvaluateIsShownAndFailsVerify() throws Exception {
    // a decimal compared with a string: `streamform check` refuses it, a hand-made rule is
    // unchecked
    EffectRule broken =
        EffectRule.of(
            "hourly_revenue",
            "broken",
            "merchant_id",
            "revenue >= '1000'",
            EffectsProject.rules(project).get(0).provider());
    LedgerWriter.Outcome written =
        new LedgerWriter(pool, Duration.ofSeconds(10), List.of(broken))
            .write(List.of(revision(7, 10, 1, "1200")));
    assertThat(written.applied(), is(1));
    String window = revision(7, 10, 1, "1200").logicalWindowId().substring(0, 12);
    assertThat(command("effects show", project), is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: 0 effects, 0 compensations\n"
                + "rule errors (the rule could not be evaluated on the revision; the window's"
                + " effect was left as it was):\n"
                + "  type    window        by     resolved  rule                 error\n"
                + "  broken  "
                + window
                + "  g1 r1  no        `revenue >= '1000'`  `revenue >= '1000'` cannot compare"
                + " BigDecimal 1200 with String 1000\n"));
    assertThat(command("effects verify", project), is(1));
    assertThat(
        out.toString(),
        is(
            "rule error: broken `revenue >= '1000'` on window "
                + window
                + " g1 r1: `revenue >= '1000'` cannot compare BigDecimal 1200 with String 1000\n"
                + "0 effects: 0 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled; 0"
                + " dispatches, 0 open compensations; 1 problem\n"));
  }

  @Test
  void aDatabaseNobodyListensAtIsNamedWithHowToStartOne() throws Exception {
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    String nowhere = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    assertThat(
        run(
            "effects",
            "show",
            EffectsProject.HOURLY.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            nowhere,
            "--jdbc-user",
            "postgres"),
        is(1));
    assertThat(err.toString(), containsString("cannot use the database " + nowhere));
    assertThat(
        err.toString(),
        containsString(
            "Connection refused — is PostgreSQL running there? Start a local one with"
                + " runners-config/bin/postgres start, or give the right --jdbc-url"));
  }

  @Test
  void dispatchRefusesAModelWithoutEffects() throws Exception {
    dev.streamform.sink.LedgerSchema.migrate(pool);
    assertThat(command("dispatch", EffectsProject.HOURLY, "--once"), is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform dispatch: model 'hourly_revenue' declares no effects (effects: in"
                + " streamform.yml)\n"));
  }

  @Test
  void theLeaseMustExceedTheTimeout() {
    assertThat(command("dispatch", project, "--once", "--timeout", "30s", "--lease", "10s"), is(2));
    assertThat(err.toString(), containsString("--lease (10s) must exceed --timeout (30s)"));
  }

  @Test
  void aTimeoutOfZeroIsABadCommandLine() {
    // it was 'internal error: java.lang.IllegalArgumentException: Invalid duration: PT0S', exit 1
    assertThat(command("dispatch", project, "--once", "--timeout", "0s"), is(2));
    assertThat(err.toString(), containsString("--timeout (0s) must be more than 0"));
    assertThat(err.toString(), not(containsString("internal error")));
  }

  @Test
  void checkRefusesACredentialInTheWebhookUrlAndNamesTheEnvironmentOption() throws Exception {
    Path p =
        EffectsProject.copy(
            dir.resolve("p"),
            "{kind: webhook, url: \""
                + provider.url()
                + "?api_key=abc123\","
                + " idempotency: key, receipts: true}");
    assertThat(run("check", p.toString()), is(1));
    String said = out.toString() + err.toString();
    assertThat(said, containsString("carries a credential (query parameter 'api_key')"));
    assertThat(said, containsString("authorization_env: REWARDS_AUTHORIZATION"));
    assertThat(said, not(containsString("abc123")));
    Path q =
        EffectsProject.copy(
            dir.resolve("q"),
            "{kind: webhook, url: \"http://user:pw@127.0.0.1:9/x\","
                + " idempotency: key, receipts: true}");
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    assertThat(run("check", q.toString()), is(1));
    assertThat(
        out.toString() + err.toString(),
        containsString("carries a credential (user info before the host)"));
  }

  @Test
  void checkRefusesACredentialFileOutsideTheProject() throws Exception {
    Path p =
        EffectsProject.copy(
            dir.resolve("p"),
            "{kind: webhook, url: \""
                + provider.url()
                + "\","
                + " idempotency: key, receipts: true, authorization_file: ../elsewhere/token}");
    assertThat(run("check", p.toString()), is(1));
    assertThat(
        out.toString() + err.toString(),
        containsString("'../elsewhere/token' is not a path inside the project folder"));
  }

  @Test
  void aCredentialFileIsSentAsTheAuthorizationHeaderAndNeverStoredOrShown() throws Exception {
    String secret = "Bearer f1le-secret-" + System.nanoTime();
    provider.requireAuthorization(secret);
    Path p =
        EffectsProject.copy(
            dir.resolve("p"),
            "{kind: webhook, url: \""
                + provider.url()
                + "\","
                + " idempotency: key, receipts: true, authorization_file: secrets/rewards}");
    Files.createDirectories(p.resolve("secrets"));
    Files.writeString(p.resolve("secrets/rewards"), secret + "\n");
    assertThat(run("check", p.toString()), is(0));
    project = p;
    write(revision(7, 10, 1, "1200"));
    assertThat(command("dispatch", p, "--once"), is(0));
    assertThat(
        err.toString(),
        containsString(
            "(Authorization from file "
                + p.toAbsolutePath().normalize().resolve("secrets/rewards")
                + ")"));
    assertThat(provider.authorizations(), is(List.of(secret)));
    assertThat(provider.applied(keyOf(7)), is(1));
    assertThat(command("effects show", p), is(0));
    assertThat(out.toString(), containsString("DONE"));
    assertThat(out.toString() + err.toString(), not(containsString("f1le-secret")));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        java.sql.ResultSet r =
            s.executeQuery(
                "SELECT (SELECT count(*) FROM streamform.effect e WHERE e::text LIKE"
                    + " '%f1le-secret%') + (SELECT count(*) FROM streamform.effect_transition t"
                    + " WHERE t::text LIKE '%f1le-secret%')")) {
      r.next();
      assertThat("ledger rows holding the credential", r.getInt(1), is(0));
      c.commit();
    }
  }
}

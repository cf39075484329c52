package dev.streamform.cli;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerWriter;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectSettlement;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.WebhookProvider;
import dev.streamform.transforms.windows.WindowRevision;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamform effects settle} (ADR 0140): what the ledger leaves for a person — an UNKNOWN
 * effect no receipt query settles, an open compensation — recorded by a person, with the provider
 * counting every request it gets (it does not deduplicate, so a second delivery shows).
 */
class EffectsSettleCommandTest {
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
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  /** The hourly revenue project, its reward delivered to the local provider with {@code caps}. */
  private void declare(String caps) throws Exception {
    project =
        EffectsProject.copy(dir, "{kind: webhook, url: \"" + provider.url() + "\", " + caps + "}");
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

  private void write(WindowRevision... records) throws Exception {
    new LedgerWriter(pool, Duration.ofSeconds(10), EffectsProject.rules(project))
        .write(List.of(records));
  }

  private static String keyOf(long merchant) {
    return EffectIdentity.effectKey(
        "reward", revision(merchant, 10, 1, "0").logicalWindowId(), merchant);
  }

  private String state(String key) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT state FROM streamform.effect WHERE effect_key = '" + key + "'")) {
      rs.next();
      String state = rs.getString(1);
      c.commit();
      return state;
    }
  }

  @Test
  void anUnknownEffectAPersonFoundAppliedIsDoneWithWhoAndWhyAndVerifiesClean() throws Exception {
    // neither capability: nothing but a person can settle a lost answer
    declare("idempotency: none, receipts: false");
    write(revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.ACCEPT_THEN_DROP);
    assertThat(command("dispatch", "--once", "--timeout", "1s"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 1 claimed, 0 done, 1 unknown,"));
    String key = keyOf(7);

    assertThat(
        command(
            "effects settle",
            "--effect",
            key.substring(0, 8),
            "--applied",
            "--receipt",
            "T-991",
            "--by",
            "alice",
            "--reason",
            "found in the provider's console"),
        is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: effect "
                + key
                + " UNKNOWN -> DONE: applied at the provider, settled by a person\n"));
    assertThat(state(key), is("DONE"));

    assertThat(command("effects show"), is(0));
    assertThat(out.toString(), containsString("  DONE   1         T-991    -\n"));
    assertThat(
        out.toString(),
        matchesPattern(
            "(?s).*settled by a person \\(streamform effects settle\\):\n"
                + "  key +found +now +receipt +at, by, why\n"
                + "  "
                + key.substring(0, 12)
                + "  applied  DONE  T-991    \\S+Z by alice: found in the provider's console\n"));

    assertThat(command("effects verify"), is(0));
    assertThat(
        out.toString(),
        is(
            "1 effect: 1 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled;"
                + " 1 dispatch, 0 open compensations; 0 problems\n"));

    assertThat(
        command("effects settle", "--effect", key.substring(0, 12), "--applied", "--reason", "x"),
        is(1));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: effect "
                + key
                + " is DONE, not UNKNOWN: its outcome is known (a receipt or a settlement)\n"));
    assertThat(command("dispatch", "--once"), is(0));
    assertThat(provider.requests(key), is(1));
    assertThat(provider.applied(key), is(1));
  }

  @Test
  void doneAndPreparedEffectsAreRefusedAndNothingChanges() throws Exception {
    declare("idempotency: key, receipts: true");
    write(revision(7, 10, 1, "1200"));
    assertThat(command("dispatch", "--once"), is(0));
    write(revision(8, 10, 1, "1500"));
    assertThat(
        command("effects settle", "--effect", keyOf(7), "--not-applied", "--reason", "x"), is(1));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: effect "
                + keyOf(7)
                + " is DONE, not UNKNOWN: its outcome is known (a receipt or a settlement)\n"));
    assertThat(
        command(
            "effects settle", "--effect", keyOf(8).substring(0, 12), "--applied", "--reason", "x"),
        is(1));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: effect "
                + keyOf(8)
                + " is PREPARED, not UNKNOWN: nothing has been sent yet; a dispatcher delivers"
                + " it\n"));
    assertThat(state(keyOf(7)), is("DONE"));
    assertThat(state(keyOf(8)), is("PREPARED"));
    assertThat(provider.requests(), is(1));
    assertThat(command("effects show"), is(0));
    assertThat(out.toString(), not(containsString("settled by a person")));
  }

  @Test
  void anAmbiguousPrefixListsItsMatchesAndAnUnknownOneIsNamed() throws Exception {
    declare("idempotency: key, receipts: true");
    // 17 merchants: two of their keys share a first hex digit
    Map<Character, List<String>> byFirst = new HashMap<>();
    List<WindowRevision> revisions = new ArrayList<>();
    for (long m = 1; m <= 17; m++) {
      revisions.add(revision(m, 10, 1, "1200"));
      byFirst.computeIfAbsent(keyOf(m).charAt(0), c -> new ArrayList<>()).add(keyOf(m));
    }
    write(revisions.toArray(WindowRevision[]::new));
    List<String> shared =
        byFirst.values().stream().filter(l -> l.size() > 1).findFirst().orElseThrow();
    String prefix = shared.get(0).substring(0, 1);
    assertThat(command("effects settle", "--effect", prefix, "--applied", "--reason", "x"), is(1));
    String said = err.toString();
    assertThat(
        said,
        startsWith(
            "streamform effects settle: effect key prefix "
                + prefix
                + " is ambiguous: it matches "
                + shared.size()
                + " effects of model hourly_revenue: "));
    for (String k : shared) {
      assertThat(said, containsString(k + " (PREPARED)"));
    }
    assertThat(said, containsString("; give more of the key\n"));
    assertThat(said.lines().count(), is(1L));

    String nowhere =
        "0123456789abcdef"
            .chars()
            .mapToObj(c -> "" + (char) c)
            .filter(c -> !byFirst.containsKey(c.charAt(0)))
            .findFirst()
            .orElse("ffffffffffffffff");
    if (nowhere.length() == 1) {
      nowhere = nowhere + "00";
    }
    assertThat(command("effects settle", "--effect", nowhere, "--applied", "--reason", "x"), is(1));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: no effect of model hourly_revenue has a key starting with "
                + nowhere
                + "\n"));
  }

  @Test
  void notAppliedForAProviderThatDedupesByKeyIsDeliveredOnceMoreUnderTheSameKey() throws Exception {
    // no receipt queries: only a person can say the 500 applied nothing
    declare("idempotency: key, receipts: false");
    write(revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(command("dispatch", "--once", "--backoff", "1ms", "--max-backoff", "1ms"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 1 claimed, 0 done, 1 unknown,"));
    provider.mode(LocalProviderServer.Mode.OK);
    assertThat(command("dispatch", "--once"), is(0));
    assertThat("UNKNOWN is never retried blindly", provider.requests(keyOf(7)), is(1));

    assertThat(
        command(
            "effects settle",
            "--effect",
            keyOf(7).substring(0, 12),
            "--not-applied",
            "--by",
            "alice",
            "--reason",
            "the provider's log shows a 500 and no reward"),
        is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: effect "
                + keyOf(7)
                + " UNKNOWN -> PREPARED: never applied; the next dispatcher pass delivers it again"
                + " under the same idempotency key\n"));
    assertThat(provider.requests(keyOf(7)), is(1));

    assertThat(command("dispatch", "--once"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 1 claimed, 1 done, 0 unknown,"));
    assertThat(command("dispatch", "--once"), is(0));
    assertThat("the 500 and one delivery", provider.requests(keyOf(7)), is(2));
    assertThat(provider.applied(keyOf(7)), is(1));
    assertThat(command("effects verify"), is(0));
    assertThat(
        out.toString(),
        is(
            "1 effect: 1 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled;"
                + " 2 dispatches, 0 open compensations; 0 problems\n"));
  }

  /**
   * The window's revisions moved while the effect was UNKNOWN: settling it never applied brings it
   * in line with the canonical values now, as alias set's re-evaluation would, rather than leave it
   * PREPARED for a revision that is no longer canonical (which no dispatcher ever claims).
   */
  @Test
  void notAppliedFollowsTheCanonicalValuesNowAndIsCancelledWhenItsRuleWentFalse() throws Exception {
    declare("idempotency: key, receipts: false");
    write(revision(7, 10, 1, "1200"), revision(8, 10, 1, "1300"));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(command("dispatch", "--once", "--backoff", "1ms", "--max-backoff", "1ms"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 2 claimed, 0 done, 2 unknown,"));
    provider.mode(LocalProviderServer.Mode.OK);
    // while UNKNOWN: merchant 7's rule went false, merchant 8's values changed (still true); each
    // a compensation record, the effect rows untouched
    write(revision(7, 10, 2, "900"), revision(8, 10, 2, "1600"));

    assertThat(
        command(
            "effects settle",
            "--effect",
            keyOf(7).substring(0, 12),
            "--not-applied",
            "--by",
            "alice",
            "--reason",
            "the provider's log shows a 500 and no reward"),
        is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: effect "
                + keyOf(7)
                + " UNKNOWN -> CANCELLED: never applied, and its rule is false on the canonical"
                + " values now (generation 1 revision 2): nothing is sent; a revision that makes it"
                + " true again prepares it again\n"));
    assertThat(state(keyOf(7)), is("CANCELLED"));
    assertThat(
        command("effects settle", "--effect", keyOf(8), "--not-applied", "--reason", "a 500"),
        is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: effect "
                + keyOf(8)
                + " UNKNOWN -> PREPARED: never applied; the next dispatcher pass delivers it again"
                + " under the same idempotency key\n"));

    // merchant 8 is delivered with its values now; merchant 7 is not sent, nor waits
    assertThat(command("dispatch", "--once"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 1 claimed, 1 done, 0 unknown,"));
    assertThat(out.toString(), containsString(" 0 waiting for their canonical revision; "));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(provider.applied(keyOf(7)), is(0));
    assertThat(provider.requests(keyOf(8)), is(2));
    assertThat(provider.applied(keyOf(8)), is(1));
    assertThat(command("effects show"), is(0));
    assertThat(
        out.toString(),
        matchesPattern(
            "(?s).*  "
                + keyOf(7).substring(0, 12)
                + "  not applied  CANCELLED  -  +\\S+Z by alice: the provider's log shows a 500"
                + " and no reward\n.*"));
    assertThat(command("effects verify"), is(0));
    assertThat(
        out.toString(),
        is(
            "2 effects: 1 done, 0 unknown, 0 prepared, 0 dispatching, 1 cancelled;"
                + " 3 dispatches, 2 open compensations; 0 problems\n"));

    // the rule true again: prepared again and delivered under the same key, once
    write(revision(7, 10, 3, "1400"));
    assertThat(command("dispatch", "--once"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 1 claimed, 1 done, 0 unknown,"));
    assertThat(provider.requests(keyOf(7)), is(2));
    assertThat(provider.applied(keyOf(7)), is(1));
    assertThat(command("effects verify"), is(0));
    assertThat(out.toString(), containsString("; 0 problems\n"));
  }

  /**
   * The dispatcher's own "never applied" (a receipt query) confirms the effect as the settlement
   * above does (ADR 0159): merchant 7's rule went false while it was UNKNOWN, so it is cancelled
   * and nothing is sent; merchant 8's values changed, so it is delivered with those.
   */
  @Test
  void aReceiptQuerySayingNeverAppliedFollowsTheCanonicalValuesAsASettlementDoes()
      throws Exception {
    declare("idempotency: key, receipts: true");
    write(revision(7, 10, 1, "1200"), revision(8, 10, 1, "1300"));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(command("dispatch", "--once", "--backoff", "1ms", "--max-backoff", "1ms"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 2 claimed, 0 done, 2 unknown,"));
    write(revision(7, 10, 2, "900"), revision(8, 10, 2, "1600"));
    provider.mode(LocalProviderServer.Mode.OK);

    assertThat(command("dispatch", "--once"), is(0));
    assertThat(
        out.toString(),
        containsString(" 1 delivered again after a receipt query said never applied, "));
    assertThat(
        out.toString(),
        containsString(
            "; 1 found never applied and cancelled, nothing sent (its rule is false on the"
                + " canonical values now)"));
    assertThat(state(keyOf(7)), is("CANCELLED"));
    assertThat(state(keyOf(8)), is("DONE"));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(provider.applied(keyOf(7)), is(0));
    assertThat(provider.applied(keyOf(8)), is(1));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT revision, payload->'values'->>'revenue' FROM streamform.effect WHERE"
                    + " effect_key = '"
                    + keyOf(8)
                    + "'")) {
      rs.next();
      assertThat(rs.getInt(1) + " " + rs.getString(2), is("2 1600"));
      c.commit();
    }
    assertThat(command("dispatch", "--once"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 0 claimed, 0 done, 0 unknown,"));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(command("effects verify"), is(0));
    assertThat(out.toString(), containsString("; 0 problems\n"));
  }

  @Test
  void notAppliedForAProviderWithoutKeysIsClosedAndNeverSentAgain() throws Exception {
    declare("idempotency: none, receipts: true");
    write(revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(command("dispatch", "--once", "--backoff", "1ms", "--max-backoff", "1ms"), is(0));
    provider.mode(LocalProviderServer.Mode.OK);
    assertThat(command("dispatch", "--once"), is(0));
    assertThat(
        out.toString(), containsString("1 found never applied and left UNKNOWN for a person"));

    assertThat(
        command(
            "effects settle",
            "--effect",
            keyOf(7).substring(0, 12),
            "--not-applied",
            "--by",
            "alice",
            "--reason",
            "rewarded by hand"),
        is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: effect "
                + keyOf(7)
                + " UNKNOWN -> NOT_APPLIED: never applied; never sent again (its provider does not"
                + " dedupe by key)\n"));
    for (int pass = 0; pass < 3; pass++) {
      assertThat(command("dispatch", "--once"), is(0));
    }
    assertThat("the one POST, never a second", provider.requests(keyOf(7)), is(1));
    assertThat(provider.applied(keyOf(7)), is(0));
    assertThat(state(keyOf(7)), is("NOT_APPLIED"));

    // a later correction has nothing to compensate: nothing happened
    write(revision(7, 10, 2, "900"));
    assertThat(command("effects verify"), is(0));
    assertThat(
        out.toString(),
        is(
            "1 effect: 0 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled, 1 not applied;"
                + " 1 dispatch, 0 open compensations; 0 problems\n"));
    assertThat(command("effects show"), is(0));
    assertThat(out.toString(), startsWith("hourly_revenue: 1 effect, 0 compensations\n"));
    assertThat(out.toString(), containsString("  not applied  NOT_APPLIED  -"));
    assertThat(
        command("effects settle", "--effect", keyOf(7), "--not-applied", "--reason", "again"),
        is(1));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: effect "
                + keyOf(7)
                + " is NOT_APPLIED, not UNKNOWN: a person settled it as never applied; it is"
                + " never sent again\n"));
  }

  @Test
  void aPersonClosesAnOpenCompensationOnce() throws Exception {
    declare("idempotency: key, receipts: true");
    write(revision(7, 10, 1, "1200"));
    assertThat(command("dispatch", "--once"), is(0));
    write(revision(7, 10, 2, "900"));
    assertThat(command("effects verify"), is(0));
    assertThat(out.toString(), containsString("; 1 dispatch, 1 open compensation; 0 problems\n"));
    assertThat(command("effects show"), is(0));
    String key = keyOf(7).substring(0, 12);
    assertThat(
        out.toString(),
        containsString(
            "  id  key           reason      by     effect was  closed\n"
                + "  1   "
                + key
                + "  rule_false  g1 r2  DONE        - (open)\n"));

    assertThat(
        command(
            "effects settle",
            "--compensation",
            "1",
            "--done",
            "--by",
            "bob",
            "--reason",
            "reward clawed back by support"),
        is(0));
    assertThat(
        out.toString(),
        matchesPattern(
            "hourly_revenue: compensation 1 of effect "
                + key
                + " closed \\S+Z by bob: reward clawed back by support\n"));
    assertThat(command("effects show"), is(0));
    assertThat(
        out.toString(),
        matchesPattern(
            "(?s).*  1   "
                + key
                + "  rule_false  g1 r2  DONE        \\S+Z by bob: reward clawed back by"
                + " support\n"
                + ".*"));
    assertThat(command("effects verify"), is(0));
    assertThat(out.toString(), containsString("; 1 dispatch, 0 open compensations; 0 problems\n"));

    assertThat(command("effects settle", "--compensation", "1", "--done", "--reason", "x"), is(1));
    assertThat(
        err.toString(),
        matchesPattern(
            "streamform effects settle: compensation 1 is closed already: \\S+Z by bob: reward"
                + " clawed back by support\n"));
    assertThat(command("effects settle", "--compensation", "9", "--done", "--reason", "x"), is(1));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: model hourly_revenue has no compensation 9 (effects show"
                + " lists them)\n"));
    assertThat(provider.requests(), is(1));
  }

  /**
   * An effect is settled in a ledger that holds it: in a database without one, the command says so
   * and leaves the database as it was. It created schema streamform and then found no such effect
   * (found by a read-only audit of the command line).
   */
  @Test
  void aDatabaseWithoutALedgerIsSaidAndLeftAsItWas() throws Exception {
    declare("idempotency: key, receipts: true");
    assertThat(command("effects settle", "--effect", "abcd", "--applied", "--reason", "x"), is(1));
    assertThat(
        err.toString(), containsString("streamform effects settle: no Streamform ledger in"));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM information_schema.schemata"
                    + " WHERE schema_name = 'streamform'")) {
      rs.next();
      assertThat(rs.getLong(1), is(0L));
      c.commit();
    }
  }

  @Test
  void theCommandLineMustSayWhatAndHowAndWhy() throws Exception {
    declare("idempotency: key, receipts: true");
    assertThat(command("effects settle", "--effect", "ab", "--applied"), is(2));
    assertThat(err.toString(), containsString("Missing required option: '--reason=TEXT'"));
    assertThat(
        command("effects settle", "--compensation", "1", "--applied", "--reason", "x"), is(2));
    assertThat(err.toString(), containsString("--compensation takes --done"));
    assertThat(command("effects settle", "--effect", "ab", "--done", "--reason", "x"), is(2));
    assertThat(err.toString(), containsString("--effect takes --applied or --not-applied"));
  }

  @Test
  void settlementsRacingForOneUnknownEffectHaveOneWinner() throws Exception {
    declare("idempotency: none, receipts: false");
    write(revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.ACCEPT_THEN_DROP);
    assertThat(command("dispatch", "--once", "--timeout", "1s"), is(0));
    EffectSettlement settlement = new EffectSettlement(pool);
    List<Callable<Boolean>> racers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String by = "person-" + i;
      racers.add(
          () -> {
            try {
              if (by.endsWith("0") || by.endsWith("2")) {
                settlement.applied("hourly_revenue", keyOf(7), by, "race", null);
              } else {
                settlement.notApplied("hourly_revenue", keyOf(7), by, "race");
              }
              return true;
            } catch (EffectSettlement.Refused e) {
              assertThat(e.getMessage(), containsString(", not UNKNOWN: "));
              return false;
            }
          });
    }
    ExecutorService pool4 = Executors.newFixedThreadPool(4);
    int won = 0;
    try {
      for (Future<Boolean> f : pool4.invokeAll(racers)) {
        won += f.get() ? 1 : 0;
      }
    } finally {
      pool4.shutdownNow();
    }
    assertThat(won, is(1));
    assertThat(command("effects verify"), is(0));
    assertThat(out.toString(), containsString(" 0 unknown, "));
    assertThat(out.toString(), containsString("; 0 problems\n"));
  }

  @Test
  void aSettlementQueuedFirstBeatsTheDispatchersReceiptAndTheDispatcherSaysItLost()
      throws Exception {
    Race race = race(true);
    assertThat(race.settleExit(), is(0));
    assertThat(
        race.settleSaid(),
        is(
            "hourly_revenue: effect "
                + keyOf(7)
                + " UNKNOWN -> DONE: applied at the provider, settled by a person\n"));
    assertThat(race.pass().resolvedDone(), is(0));
    assertThat(race.pass().lost(), is(1));
    assertThat(
        race.pass().describe(),
        containsString(
            "; 1 outcome lost to another dispatcher or a person's settlement (not written)"));
    assertThat(ledger(keyOf(7)), is("DONE receipt T-1; 1 move from UNKNOWN; settlements: alice"));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(provider.applied(keyOf(7)), is(1));
  }

  @Test
  void theDispatchersReceiptQueuedFirstBeatsASettlementThatIsRefusedNamingTheStateItFound()
      throws Exception {
    Race race = race(false);
    assertThat(race.pass().resolvedDone(), is(1));
    assertThat(race.pass().lost(), is(0));
    assertThat(race.settleExit(), is(1));
    assertThat(race.settleSaid(), is(""));
    assertThat(
        race.settleRefused(),
        is(
            "streamform effects settle: effect "
                + keyOf(7)
                + " is DONE, not UNKNOWN: its outcome is known (a receipt or a settlement)\n"));
    String receipt = ledger(keyOf(7));
    assertThat(receipt, startsWith("DONE receipt "));
    assertThat(receipt, not(containsString("T-1")));
    assertThat(receipt, containsString("; 1 move from UNKNOWN; settlements: none"));
    assertThat(provider.requests(keyOf(7)), is(1));
    assertThat(provider.applied(keyOf(7)), is(1));
  }

  /** What a {@link #race} did: the settlement's exit and output, and the dispatcher's pass. */
  private record Race(
      int settleExit, String settleSaid, String settleRefused, Dispatcher.Report pass) {}

  /**
   * An effect whose answer was lost (applied at the provider, UNKNOWN in the ledger) that a
   * dispatcher's receipt query (found: DONE) and a person's settlement move at once, each by its
   * own compare-and-set on UNKNOWN. The row lock is the latch: a transaction holds the effect's row
   * while both updates queue for it in a fixed order ({@code settlementFirst}, else the dispatcher
   * first), then lets go. The first in the queue moves the effect; the second finds it moved. A
   * further dispatcher pass afterwards sends nothing.
   */
  private Race race(boolean settlementFirst) throws Exception {
    declare("idempotency: key, receipts: true");
    write(revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.ACCEPT_THEN_DROP);
    assertThat(command("dispatch", "--once", "--timeout", "1s"), is(0));
    assertThat(out.toString(), startsWith("pass 1: 1 claimed, 0 done, 1 unknown,"));
    provider.mode(LocalProviderServer.Mode.OK);
    String key = keyOf(7);
    assertThat(state(key), is("UNKNOWN"));

    ExecutorService racers = Executors.newFixedThreadPool(2);
    try (HikariDataSource dispatcherPool =
            JdbcTarget.of(url).withUser("postgres").openPool("dispatcher", 2, 2_000);
        Connection latch = pool.getConnection()) {
      Dispatcher dispatcher =
          new Dispatcher(
              dispatcherPool,
              "racer",
              "hourly_revenue",
              Map.of(
                  "reward",
                  new WebhookProvider(
                      EffectsProject.rules(project).get(0).provider(), Duration.ofSeconds(5))),
              Duration.ofSeconds(30),
              new Dispatcher.Hooks() {});
      try (PreparedStatement s =
          latch.prepareStatement(
              "SELECT 1 FROM streamform.effect WHERE effect_key = ? FOR UPDATE")) {
        s.setString(1, key);
        s.executeQuery().close();
      }
      Callable<Integer> settle =
          () ->
              settlementFirst
                  ? command(
                      "effects settle",
                      "--effect",
                      key.substring(0, 12),
                      "--applied",
                      "--receipt",
                      "T-1",
                      "--by",
                      "alice",
                      "--reason",
                      "found in the provider's console")
                  : command(
                      "effects settle",
                      "--effect",
                      key.substring(0, 12),
                      "--not-applied",
                      "--by",
                      "alice",
                      "--reason",
                      "nothing in the provider's console");
      Future<Integer> settled;
      Future<Dispatcher.Report> passed;
      if (settlementFirst) {
        settled = racers.submit(settle);
        awaitQueued(1);
        passed = racers.submit(() -> dispatcher.runOnce(1));
      } else {
        passed = racers.submit(() -> dispatcher.runOnce(1));
        awaitQueued(1);
        settled = racers.submit(settle);
      }
      awaitQueued(2);
      latch.commit();
      int exit = settled.get(30, java.util.concurrent.TimeUnit.SECONDS);
      Dispatcher.Report pass = passed.get(30, java.util.concurrent.TimeUnit.SECONDS);
      Race race = new Race(exit, out.toString(), err.toString(), pass);
      // the loser changed nothing that would send the effect again
      assertThat(command("dispatch", "--once"), is(0));
      assertThat(out.toString(), startsWith("pass 1: 0 claimed, 0 done, 0 unknown,"));
      return race;
    } finally {
      racers.shutdownNow();
    }
  }

  /** Waits until {@code n} updates of an effect's state wait for a row lock. */
  private void awaitQueued(int n) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (HikariDataSource watcher =
            JdbcTarget.of(url).withUser("postgres").openPool("watcher", 2, 2_000);
        Connection c = watcher.getConnection()) {
      while (true) {
        try (Statement s = c.createStatement();
            ResultSet rs =
                s.executeQuery(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND wait_event_type = 'Lock' AND query LIKE 'UPDATE streamform.effect"
                        + " SET state = %'")) {
          rs.next();
          int queued = rs.getInt(1);
          c.commit();
          if (queued >= n) {
            assertThat("updates queued for the effect's row", queued, is(n));
            return;
          }
        }
        if (System.nanoTime() > until) {
          throw new AssertionError("fewer than " + n + " updates queued for the effect's row");
        }
        Thread.sleep(20);
      }
    }
  }

  /** {@code DONE receipt R; N moves from UNKNOWN; settlements: alice} (or none). */
  private String ledger(String key) throws Exception {
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT e.state, e.receipt, (SELECT count(*) FROM streamform.effect_transition t"
                    + " WHERE t.effect_key = e.effect_key AND t.from_state = 'UNKNOWN'),"
                    + " (SELECT coalesce(string_agg(x.actor, ', '), 'none') FROM"
                    + " streamform.effect_settlement x WHERE x.effect_key = e.effect_key) FROM"
                    + " streamform.effect e WHERE e.effect_key = ?")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        String said =
            rs.getString(1)
                + " receipt "
                + rs.getString(2)
                + "; "
                + rs.getInt(3)
                + (rs.getInt(3) == 1 ? " move" : " moves")
                + " from UNKNOWN; settlements: "
                + rs.getString(4);
        c.commit();
        return said;
      }
    }
  }

  @Test
  void verifyStillReportsAMoveNoSettlementRecorded() throws Exception {
    declare("idempotency: none, receipts: false");
    write(revision(7, 10, 1, "1200"));
    provider.mode(LocalProviderServer.Mode.ACCEPT_THEN_DROP);
    assertThat(command("dispatch", "--once", "--timeout", "1s"), is(0));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      // by hand, behind streamform's back: no settlement recorded
      s.executeUpdate("UPDATE streamform.effect SET state = 'PREPARED'");
      s.executeUpdate(
          "INSERT INTO streamform.effect_transition (effect_key, from_state, to_state, note)"
              + " SELECT effect_key, 'UNKNOWN', 'PREPARED', 'by hand' FROM streamform.effect");
      c.commit();
    }
    assertThat(command("effects verify"), is(1));
    assertThat(
        out.toString(),
        startsWith(
            keyOf(7).substring(0, 12)
                + ": prepared again after UNKNOWN without a person's settlement or a receipt"
                + " query\n"));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      // a late outcome that proved nothing was sent is no problem (the dispatcher's own move)
      s.executeUpdate(
          "UPDATE streamform.effect_transition SET note = 'nothing sent: connection refused'"
              + " WHERE note = 'by hand'");
      c.commit();
    }
    assertThat(command("effects verify"), is(0));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE streamform.effect_transition SET note = 'settled by mallory: x'"
              + " WHERE note LIKE 'nothing sent: %'");
      c.commit();
    }
    assertThat(command("effects verify"), is(1));
    assertThat(
        out.toString(),
        containsString(
            keyOf(7).substring(0, 12)
                + ": 1 move by a person's settlement but 0 settlements recorded\n"));
    assertThat(
        out.toString(),
        containsString(
            keyOf(7).substring(0, 12)
                + ": prepared again after UNKNOWN, and its provider does not dedupe by key\n"));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE streamform.effect SET state = 'NOT_APPLIED'");
      c.commit();
    }
    assertThat(command("effects verify"), is(1));
    assertThat(
        out.toString(),
        containsString(
            keyOf(7).substring(0, 12) + ": NOT_APPLIED without a person's settlement\n"));
  }
}

package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasValue;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import dev.streamform.transforms.windows.WindowRevision;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One-time effects (docs/semantics.md §10, issue 13): a reward when a merchant's hourly revenue
 * reaches 1000. Every fault ends with "provider-side effects per key <= 1" and the ledger's states.
 */
class EffectsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectsLedger effects;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    provider = LocalProviderServer.start(0);
    // a second delivery of a key must be visible as a second effect, not deduplicated away
    provider.dedupe(false);
    effects = new EffectsLedger(pool);
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private EffectRule rule(boolean idempotency, boolean receipts) throws Exception {
    return EffectRule.of(
        Revisions.MODEL,
        "reward",
        "merchant_id",
        "revenue >= 1000",
        ProviderSpec.webhook(provider.url(), idempotency, receipts));
  }

  private LedgerWriter writer(EffectRule rule) {
    return new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule));
  }

  /**
   * How long the provider client waits for an answer: long enough that a loaded machine's slow
   * answer (a 500, a receipt) is still an answer; the tests of an unanswered request set 400 ms,
   * below their provider's hang.
   */
  private Duration providerTimeout = Duration.ofSeconds(10);

  private Dispatcher dispatcher(
      String name, EffectRule rule, Duration lease, Dispatcher.Hooks hooks) {
    // a lease must exceed the provider's timeout: the tests of short leases keep 400 ms
    Duration timeout =
        lease.compareTo(providerTimeout) > 0 ? providerTimeout : Duration.ofMillis(400);
    EffectProvider p = new WebhookProvider(rule.provider(), timeout);
    // no backoff: these tests run their passes back to back (backoff has its own test)
    return new Dispatcher(pool, name, Revisions.MODEL, Map.of("reward", p), lease, hooks)
        .withBackoff(Duration.ZERO, Duration.ZERO);
  }

  private Dispatcher dispatcher(String name, EffectRule rule) {
    return dispatcher(name, rule, Duration.ofSeconds(30), new Dispatcher.Hooks() {});
  }

  private static String keyOf(WindowRevision r) {
    return EffectIdentity.effectKey("reward", r.logicalWindowId(), r.key().getInt64("merchant_id"));
  }

  private List<String> states() throws Exception {
    return effects.effects(Revisions.MODEL).stream().map(EffectsLedger.Effect::state).toList();
  }

  /** At most one provider-side effect and at most one request per key (none deduplicated away). */
  private void atMostOnePerKey() throws Exception {
    atMostOnePerKey(1);
  }

  /** ... with up to {@code requests} requests per key (a redelivery after "never applied"). */
  private void atMostOnePerKey(int requests) throws Exception {
    assertThat(
        "provider-side effects per key", provider.appliedPerKey(), not(hasValue(greaterThan(1))));
    assertThat("requests per key", provider.requestsPerKey(), not(hasValue(greaterThan(requests))));
    EffectsLedger.Verification v = effects.verify(Revisions.MODEL);
    assertThat(v.problems(), empty());
  }

  /** Thrown by a hook: the dispatcher stops dead there, as a kill -9 would stop it. */
  private static final class Killed extends Error {
    Killed() {
      super("killed", null, false, false);
    }
  }

  @Test
  void aRevisionThatMakesTheRuleTruePreparesTheEffectInItsOwnTransaction() throws Exception {
    LedgerWriter w = writer(rule(true, true));
    LedgerWriter.Outcome below = w.write(List.of(revision(7, 10, 1, "400")));
    assertThat(below.effects().prepared(), equalTo(0));
    LedgerWriter.Outcome above =
        w.write(List.of(revision(7, 10, 2, "1200"), revision(8, 10, 1, "999.99")));
    assertThat(above.effects().prepared(), equalTo(1));
    assertThat(states(), equalTo(List.of("PREPARED")));
    EffectsLedger.Effect e = effects.effects(Revisions.MODEL).get(0);
    assertThat(e.effectKey(), equalTo(keyOf(revision(7, 10, 2, "1200"))));
    assertThat(e.madeTrueBy(), equalTo(2));
    // the same revisions again: nothing new
    LedgerWriter.Outcome replay = w.write(List.of(revision(7, 10, 2, "1200")));
    assertThat(replay.effects(), equalTo(LedgerWriter.Effects.NONE));
    assertThat(provider.requests(), equalTo(0));
  }

  @Test
  void responseLostAfterTheProviderAcceptedIsUnknownThenResolvedByTheReceipt() throws Exception {
    EffectRule rule = rule(true, true);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.ACCEPT_THEN_DROP);
    Dispatcher.Report lost = dispatcher("d1", rule).runOnce(10);
    assertThat(lost.unknown(), equalTo(1));
    assertThat(states(), equalTo(List.of("UNKNOWN")));
    assertThat(provider.applied(keyOf(revision(7, 10, 1, "1200"))), equalTo(1));

    provider.mode(LocalProviderServer.Mode.OK);
    Dispatcher.Report resolved = dispatcher("d1", rule).runOnce(10);
    assertThat(resolved.resolvedDone(), equalTo(1));
    assertThat(resolved.redispatched(), equalTo(0));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(provider.requests(), equalTo(1));
    atMostOnePerKey();
  }

  @Test
  void aTimeoutIsUnknownAndA500IsUnknownTooThenQueriedNeverBlindlyRetried() throws Exception {
    EffectRule rule = rule(true, true);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(dispatcher("d1", rule).runOnce(10).unknown(), equalTo(1));
    assertThat(provider.applied(keyOf(revision(7, 10, 1, "1200"))), equalTo(0));
    // the receipt query says never applied and the provider dedupes by key: delivered again, same
    // key
    provider.mode(LocalProviderServer.Mode.OK);
    Dispatcher.Report again = dispatcher("d1", rule).runOnce(10);
    assertThat(again.redispatched(), equalTo(1));
    assertThat(again.done(), equalTo(1));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(provider.requests(keyOf(revision(7, 10, 1, "1200"))), equalTo(2));
    atMostOnePerKey(2);
  }

  @Test
  void aReceiptQuerySayingNeverAppliedWhileTheUnansweredRequestMayStillArriveSendsNothing()
      throws Exception {
    EffectRule rule = rule(true, true);
    WindowRevision r = revision(7, 10, 1, "1200");
    writer(rule).write(List.of(r));
    // a slow provider: the dispatcher gives up after 400 ms; the provider applies after 2 s
    providerTimeout = Duration.ofMillis(400);
    provider.hang(Duration.ofSeconds(2));
    provider.mode(LocalProviderServer.Mode.TIMEOUT);
    Duration lease = Duration.ofSeconds(4);
    assertThat(
        dispatcher("d1", rule, lease, new Dispatcher.Hooks() {}).runOnce(10).unknown(), equalTo(1));
    // the next pass at once: the receipt query finds nothing yet, but the first request may still
    // be applied; "never applied" counts only once the attempt's lease is over
    provider.mode(LocalProviderServer.Mode.OK);
    Dispatcher.Report early = dispatcher("d1", rule, lease, new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(early.redispatched(), equalTo(0));
    assertThat(early.stillUnknown(), equalTo(1));
    // the provider applies the first request; a pass after the lease finds the receipt
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> provider.applied(keyOf(r)) == 1);
    Thread.sleep(lease.toMillis());
    Dispatcher.Report late = dispatcher("d1", rule, lease, new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(late.resolvedDone(), equalTo(1));
    assertThat(late.redispatched(), equalTo(0));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(provider.requests(keyOf(r)), equalTo(1));
    atMostOnePerKey();
  }

  @Test
  void aDispatcherWithAShorterLeaseLeavesAnotherDispatchersDeliveryInFlightAlone()
      throws Exception {
    EffectRule rule = rule(true, true);
    WindowRevision r = revision(7, 10, 1, "1200");
    writer(rule).write(List.of(r));
    // a slow provider: it applies and answers after 2.5 s
    provider.hang(Duration.ofMillis(2500));
    provider.mode(LocalProviderServer.Mode.TIMEOUT);
    // dispatcher a: a lease of a minute for it (its timeout 10 s); its request is in flight
    CompletableFuture<Dispatcher.Report> a =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return dispatcher("a", rule, Duration.ofMinutes(1), new Dispatcher.Hooks() {})
                    .runOnce(10);
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> states().equals(List.of("DISPATCHING")));
    Thread.sleep(800);
    // dispatcher b, alive beside it with a lease of 600 ms of its own: a's claim is a's lease's
    Dispatcher.Report b =
        dispatcher("b", rule, Duration.ofMillis(600), new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(b.expired(), equalTo(0));
    assertThat(b.redispatched(), equalTo(0));
    assertThat(a.get(30, TimeUnit.SECONDS).done(), equalTo(1));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(provider.requests(keyOf(r)), equalTo(1));
    atMostOnePerKey();
  }

  @Test
  void killedBetweenPreparedAndDispatchingThenRestartedDeliversOnce() throws Exception {
    EffectRule rule = rule(true, true);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    Dispatcher.Hooks kill =
        new Dispatcher.Hooks() {
          @Override
          public void beforeClaimCommit(List<String> keys) {
            throw new Killed();
          }
        };
    assertThrows(
        Killed.class, () -> dispatcher("d1", rule, Duration.ofSeconds(30), kill).runOnce(10));
    assertThat(states(), equalTo(List.of("PREPARED")));
    assertThat(provider.requests(), equalTo(0));

    assertThat(dispatcher("d1-restarted", rule).runOnce(10).done(), equalTo(1));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(provider.applied(keyOf(revision(7, 10, 1, "1200"))), equalTo(1));
    atMostOnePerKey();
  }

  @Test
  void killedBetweenDispatchingAndDoneThenRestartedResolvesByReceipt() throws Exception {
    EffectRule rule = rule(true, true);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    Dispatcher.Hooks kill =
        new Dispatcher.Hooks() {
          @Override
          public void afterDelivery(String key, EffectProvider.Delivery d) {
            throw new Killed();
          }
        };
    Duration lease = Duration.ofMillis(600);
    assertThrows(Killed.class, () -> dispatcher("d1", rule, lease, kill).runOnce(10));
    assertThat(states(), equalTo(List.of("DISPATCHING")));
    assertThat(provider.applied(keyOf(revision(7, 10, 1, "1200"))), equalTo(1));

    // restarted within the lease: the effect may still be on its way; nothing is touched
    Dispatcher.Report early =
        dispatcher("d1-restarted", rule, lease, new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(early.expired() + early.claimed(), equalTo(0));
    assertThat(states(), equalTo(List.of("DISPATCHING")));

    Thread.sleep(lease.toMillis() + 200);
    Dispatcher.Report late =
        dispatcher("d1-restarted", rule, lease, new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(late.expired(), equalTo(1));
    assertThat(late.resolvedDone(), equalTo(1));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(provider.requests(), equalTo(1));
    atMostOnePerKey();
  }

  @Test
  void anExpiredClaimIsSaidToHaveRunPastTheLeaseOfTheDispatcherThatClaimedIt() throws Exception {
    EffectRule rule = rule(true, true);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    Dispatcher.Hooks kill =
        new Dispatcher.Hooks() {
          @Override
          public void afterDelivery(String key, EffectProvider.Delivery d) {
            throw new Killed();
          }
        };
    assertThrows(
        Killed.class, () -> dispatcher("d1", rule, Duration.ofMillis(600), kill).runOnce(10));
    Thread.sleep(800);
    // d2's own lease is a minute: what ran out is d1's 600 ms, and the ledger says so
    Dispatcher.Report late =
        dispatcher("d2", rule, Duration.ofMinutes(1), new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(late.expired(), equalTo(1));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT note FROM streamform.effect_transition WHERE from_state = 'DISPATCHING'"
                    + " AND to_state = 'UNKNOWN'")) {
      assertThat(rs.next(), equalTo(true));
      assertThat(rs.getString(1), equalTo("the lease of dispatcher d1 (600 ms) expired"));
      c.commit();
    }
  }

  @Test
  void twoDispatchersRacingNeverDeliverAnEffectTwice() throws Exception {
    EffectRule rule = rule(true, true);
    List<WindowRevision> many = new ArrayList<>();
    for (int m = 1; m <= 30; m++) {
      many.add(revision(m, 10, 1, String.valueOf(1000 + m)));
    }
    writer(rule).write(many);
    Dispatcher a = dispatcher("a", rule);
    Dispatcher b = dispatcher("b", rule);
    List<CompletableFuture<Integer>> runs = new ArrayList<>();
    for (Dispatcher d : List.of(a, b, a, b)) {
      runs.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return d.runOnce(7).done();
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              }));
    }
    int done = 0;
    for (CompletableFuture<Integer> r : runs) {
      done += r.get(30, TimeUnit.SECONDS);
    }
    done += a.runOnce(100).done();
    assertThat(done, equalTo(30));
    assertThat(provider.requests(), equalTo(30));
    assertThat(provider.appliedPerKey().size(), equalTo(30));
    assertThat(states().stream().distinct().toList(), equalTo(List.of("DONE")));
    atMostOnePerKey();
  }

  @Test
  void aReplayUnderGenerationTwoNamesTheSameEffectAndCausesNone() throws Exception {
    EffectRule rule = rule(true, true);
    LedgerWriter w = writer(rule);
    w.write(List.of(revision(7, 10, 1, "1200", 1)));
    dispatcher("d", rule).runOnce(10);
    assertThat(states(), equalTo(List.of("DONE")));

    // a shadow generation 2 writes its own projection; it is not canonical: nothing is prepared
    LedgerWriter.Outcome shadow = w.write(List.of(revision(7, 10, 1, "1200", 2)));
    assertThat(shadow.effects(), equalTo(LedgerWriter.Effects.NONE));
    // generation 2 becomes canonical and replays the window: the same effect key, already DONE
    Ledger.at(pool).setCanonicalGeneration(Revisions.MODEL, 2);
    LedgerWriter.Outcome replay = w.write(List.of(revision(7, 10, 2, "1200", 2)));
    assertThat(replay.effects(), equalTo(LedgerWriter.Effects.NONE));
    assertThat(dispatcher("d", rule).runOnce(10).claimed(), equalTo(0));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(effects.compensations(Revisions.MODEL), empty());
    assertThat(provider.requests(), equalTo(1));
    atMostOnePerKey();
  }

  @Test
  void aCorrectionBelowTheTargetAfterDoneIsACompensationNeverASecondEffect() throws Exception {
    EffectRule rule = rule(true, true);
    LedgerWriter w = writer(rule);
    w.write(List.of(revision(7, 10, 1, "1200")));
    dispatcher("d", rule).runOnce(10);
    // the late refund: revenue 1200 -> 900
    LedgerWriter.Outcome refund = w.write(List.of(revision(7, 10, 2, "900")));
    assertThat(refund.effects().compensations(), equalTo(1));
    assertThat(w.write(List.of(revision(7, 10, 2, "900"))).effects().compensations(), equalTo(0));
    List<EffectsLedger.Compensation> open = effects.compensations(Revisions.MODEL);
    assertThat(open.size(), equalTo(1));
    assertThat(open.get(0).reason(), equalTo("rule_false"));
    assertThat(open.get(0).revision(), equalTo(2));
    assertThat(open.get(0).effectState(), equalTo("DONE"));
    // back above the target with another amount: the payload changed, a second compensation
    assertThat(w.write(List.of(revision(7, 10, 3, "1500"))).effects().compensations(), equalTo(1));
    assertThat(dispatcher("d", rule).runOnce(10).claimed(), equalTo(0));
    assertThat(states(), equalTo(List.of("DONE")));
    assertThat(effects.verify(Revisions.MODEL).figures().get("open compensations"), equalTo(2));
    assertThat(provider.requests(), equalTo(1));
    atMostOnePerKey();
  }

  /** Each effect as a line: subject, state, made true by, revision, payload's revenue. */
  private List<String> effectLines(HikariDataSource db) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT subject::text, state, made_true_by, revision,"
                    + " payload->'values'->>'revenue' FROM streamform.effect ORDER BY subject")) {
      while (rs.next()) {
        out.add(
            "merchant "
                + rs.getString(1)
                + " "
                + rs.getString(2)
                + " made true by "
                + rs.getInt(3)
                + " revision "
                + rs.getInt(4)
                + " revenue "
                + rs.getString(5));
      }
    }
    return out;
  }

  /**
   * Every revision a transaction applies is evaluated, in revision order, as if each had its own
   * transaction (docs/guides/effects.md step 1: a revision that makes the rule true prepares the
   * effect): where the sink's batches end must not change the effect ledger. Before, only each
   * window's last revision of the batch was evaluated: merchant 2's effect, true at r1, was never
   * written (not even CANCELLED), and merchant 1's was made true by 2.
   */
  @Test
  void everyRevisionOfOneTransactionIsEvaluatedInRevisionOrder() throws Exception {
    LedgerWriter w = writer(rule(true, true));
    List<WindowRevision> first =
        List.of(revision(1, 10, 1, "1200"), revision(2, 10, 1, "1500"), revision(3, 10, 1, "500"));
    List<WindowRevision> second =
        List.of(revision(1, 10, 2, "1500"), revision(2, 10, 2, "500"), revision(3, 10, 2, "1500"));
    List<WindowRevision> all = new ArrayList<>(first);
    all.addAll(second);
    LedgerWriter.Outcome one = w.write(all);
    // merchants 1 and 2 prepared at r1, merchant 3 at r2; merchant 1 follows r2, merchant 2 is
    // cancelled by it
    assertThat(one.effects(), equalTo(new LedgerWriter.Effects(3, 1, 1, 0, 0)));
    List<String> expected =
        List.of(
            "merchant 1 PREPARED made true by 1 revision 2 revenue 1500",
            "merchant 2 CANCELLED made true by 1 revision 2 revenue 1500",
            "merchant 3 PREPARED made true by 2 revision 2 revenue 1500");
    assertThat(effectLines(pool), equalTo(expected));
    // the same revisions in a transaction each leave the same ledger
    try (HikariDataSource other =
        JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("other", 2, 2_000)) {
      LedgerWriter apart =
          new LedgerWriter(other, Duration.ofSeconds(30), List.of(rule(true, true)));
      apart.write(first);
      apart.write(second);
      assertThat(effectLines(other), equalTo(expected));
    }
    assertThat(dispatcher("d", rule(true, true)).runOnce(10).done(), equalTo(2));
    atMostOnePerKey();
  }

  @Test
  void aCorrectionBeforeDispatchCancelsOrFollowsThePreparedEffect() throws Exception {
    EffectRule rule = rule(true, true);
    LedgerWriter w = writer(rule);
    w.write(List.of(revision(7, 10, 1, "1200")));
    assertThat(w.write(List.of(revision(7, 10, 2, "900"))).effects().cancelled(), equalTo(1));
    assertThat(states(), equalTo(List.of("CANCELLED")));
    assertThat(dispatcher("d", rule).runOnce(10).claimed(), equalTo(0));
    assertThat(w.write(List.of(revision(7, 10, 3, "1300"))).effects().prepared(), equalTo(1));
    Dispatcher.Report r = dispatcher("d", rule).runOnce(10);
    assertThat(r.done(), equalTo(1));
    assertThat(effects.effects(Revisions.MODEL).get(0).revision(), equalTo(3));
    assertThat(effects.compensations(Revisions.MODEL), empty());
    atMostOnePerKey();
  }

  @Test
  void aProviderWithoutIdempotencyOrQueriesIsNeverRetriedAfterDispatch() throws Exception {
    EffectRule rule = rule(false, false);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.TIMEOUT);
    providerTimeout = Duration.ofMillis(400);
    provider.hang(Duration.ofMillis(800));
    assertThat(dispatcher("d", rule).runOnce(10).unknown(), equalTo(1));
    provider.mode(LocalProviderServer.Mode.OK);
    for (int i = 0; i < 3; i++) {
      Dispatcher.Report r = dispatcher("d", rule).runOnce(10);
      assertThat(r.stillUnknown(), equalTo(1));
      assertThat(r.claimed() + r.redispatched(), equalTo(0));
    }
    Thread.sleep(600); // the slow provider applies it after the caller gave up
    assertThat(states(), equalTo(List.of("UNKNOWN")));
    assertThat(provider.requests(), equalTo(1));
    assertThat(provider.applied(keyOf(revision(7, 10, 1, "1200"))), equalTo(1));
    EffectsLedger.Effect e = effects.effects(Revisions.MODEL).get(0);
    assertThat(e.attempts(), equalTo(1));
    assertThat(e.lastError(), containsString("no answer within"));
    atMostOnePerKey();
  }

  @Test
  void aProviderThatWentAwayGetsNothingAndTheEffectWaits() throws Exception {
    EffectRule rule = rule(false, false);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    provider.close();
    Dispatcher.Report r = dispatcher("d", rule).runOnce(10);
    assertThat(r.notSent(), equalTo(1));
    assertThat(states(), equalTo(List.of("PREPARED")));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT attempts, last_error FROM streamform.effect")) {
      rs.next();
      assertThat(rs.getInt(1), equalTo(1));
      // what a person reads in `streamform effects list`: who refused, never "null"
      assertThat(rs.getString(2), startsWith("connection refused by http://127.0.0.1:"));
      assertThat(rs.getString(2), not(containsString("null")));
      c.commit();
    }
  }

  private int count(String sql) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      int n = rs.getInt(1);
      c.commit();
      return n;
    }
  }

  @Test
  void effectsThatCannotBeSentYetNeverStarveOneThatCan() throws Exception {
    EffectRule rule = rule(true, true);
    LedgerWriter w = writer(rule);
    List<WindowRevision> stale = new ArrayList<>();
    for (int m = 1; m <= 120; m++) {
      stale.add(revision(m, 10, 1, "1500", 1));
    }
    w.write(stale);
    // alias set: generation 2 is canonical; generation 1's 120 PREPARED effects cannot be sent now
    w.write(List.of(revision(1, 10, 1, "10", 2)));
    Ledger.at(pool).setCanonicalGeneration(Revisions.MODEL, 2);
    w.write(List.of(revision(500, 10, 1, "2000", 2)));
    assertThat(
        count("SELECT count(*) FROM streamform.effect WHERE state = 'PREPARED'"), equalTo(121));

    Dispatcher.Report r = dispatcher("d", rule).runOnce(100);
    System.out.println(
        "120 stale PREPARED effects ahead of a sendable one, limit 100: " + r.describe());
    assertThat("the sendable effect behind 120 that cannot be sent", r.claimed(), equalTo(1));
    assertThat(r.done(), equalTo(1));
    assertThat(provider.applied(keyOf(revision(500, 10, 1, "2000", 2))), equalTo(1));
    atMostOnePerKey();
  }

  @Test
  void aLateOutcomeNeverOverwritesAnotherDispatchersClaim() throws Exception {
    EffectRule rule = rule(true, true);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    String key = keyOf(revision(7, 10, 1, "1200"));
    provider.close(); // "nothing sent" is the outcome d1 will try to write
    Dispatcher.Hooks meanwhile =
        new Dispatcher.Hooks() {
          @Override
          public void afterDelivery(String k, EffectProvider.Delivery d) {
            // d1 was slow: its lease ran out and dispatcher b claimed the effect and is delivering
            // it
            try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
              s.executeUpdate(
                  "UPDATE streamform.effect SET dispatcher = 'b', dispatched_at = now(),"
                      + " attempts = attempts + 1 WHERE effect_key = '"
                      + k
                      + "'");
              c.commit();
            } catch (java.sql.SQLException e) {
              throw new IllegalStateException(e);
            }
          }
        };
    Dispatcher.Report r = dispatcher("d1", rule, Duration.ofSeconds(30), meanwhile).runOnce(10);
    System.out.println("a late 'not sent' over another dispatcher's claim: " + r.describe());
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT state, dispatcher FROM streamform.effect WHERE effect_key = '"
                    + key
                    + "'")) {
      rs.next();
      assertThat(
          "b's claim stands",
          rs.getString(1) + " by " + rs.getString(2),
          equalTo("DISPATCHING by b"));
      c.commit();
    }
  }

  @Test
  void aProviderThatIsDownIsRetriedWithExponentialBackoff() throws Exception {
    EffectRule rule = rule(true, true);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    provider.close();
    Dispatcher d =
        dispatcher("d", rule).withBackoff(Duration.ofMillis(100), Duration.ofSeconds(10));
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    int passes = 0;
    while (System.nanoTime() < end) {
      d.runOnce(10);
      passes++;
      Thread.sleep(20);
    }
    int rows =
        count("SELECT count(*) FROM streamform.effect_transition WHERE from_state IS NOT NULL");
    int attempts = count("SELECT attempts FROM streamform.effect");
    System.out.println(
        "provider down for 3 s, "
            + passes
            + " passes 20 ms apart, backoff 100 ms doubling: "
            + attempts
            + " attempts, "
            + rows
            + " transition rows for the effect");
    // attempts at about 0, 0.1, 0.3, 0.7, 1.5 and 3.1 s: at most 6 in 3 s, two rows each
    assertThat(attempts, lessThanOrEqualTo(6));
    assertThat(rows, lessThanOrEqualTo(2 * 6));
    assertThat(states(), equalTo(List.of("PREPARED")));
  }

  @Test
  void anAnswerThatComesAfterTheLeaseStillMakesTheAppliedEffectDone() throws Exception {
    // no receipts: an applied effect left UNKNOWN here would stay UNKNOWN for good
    EffectRule rule = rule(true, false);
    writer(rule).write(List.of(revision(7, 10, 1, "1200")));
    Dispatcher other = dispatcher("d2", rule, Duration.ofMillis(500), new Dispatcher.Hooks() {});
    Dispatcher.Hooks slow =
        new Dispatcher.Hooks() {
          @Override
          public void afterDelivery(String k, EffectProvider.Delivery d) {
            // d1 stalls (GC, a slow disk) past the lease; d2 expires its dispatch meanwhile
            try {
              Thread.sleep(700);
              assertThat(other.runOnce(0).expired(), equalTo(1));
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          }
        };
    Dispatcher.Report r = dispatcher("d1", rule, Duration.ofMillis(500), slow).runOnce(10);
    System.out.println("an answer after the lease: " + r.describe() + "; states " + states());
    assertThat(states(), equalTo(List.of("DONE")));
    atMostOnePerKey();
  }
}

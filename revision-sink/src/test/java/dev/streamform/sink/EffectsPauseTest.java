package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasValue;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.EffectsPause;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stop switch (docs/semantics.md §10.12, issue 33): a paused model's dispatcher claims nothing
 * new, within the pass that sees the pause, and says so; what it already claimed finishes and is
 * recorded. Counted at the provider (no dedupe: a second delivery would show).
 */
class EffectsPauseTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectsLedger effects;
  private EffectsPause pause;
  private EffectRule rule;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    provider = LocalProviderServer.start(0);
    provider.dedupe(false);
    effects = new EffectsLedger(pool);
    pause = new EffectsPause(pool);
    rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(provider.url(), true, true));
    // three rewards PREPARED: merchants 1, 2, 3 at 10:00
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(
            List.of(
                revision(1, 10, 1, "1001"),
                revision(2, 10, 1, "1002"),
                revision(3, 10, 1, "1003")));
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private Dispatcher dispatcher(Dispatcher.Hooks hooks) {
    EffectProvider p = new WebhookProvider(rule.provider(), Duration.ofSeconds(2));
    return new Dispatcher(
            pool, "d", Revisions.MODEL, Map.of("reward", p), Duration.ofSeconds(30), hooks)
        .withBackoff(Duration.ZERO, Duration.ZERO);
  }

  private List<String> states() throws SQLException {
    return effects.effects(Revisions.MODEL).stream().map(EffectsLedger.Effect::state).toList();
  }

  @Test
  void aPausedModelHasNothingClaimedAndTheDispatcherSaysSoUntilResumed() throws Exception {
    EffectsPause.Change paused = pause.pause(Revisions.MODEL, "alice", "generation 2 is wrong");
    assertThat(paused.changed(), equalTo(true));
    assertThat(pause.pause(Revisions.MODEL, "bob", null).changed(), equalTo(false));

    Dispatcher.Report r = dispatcher(new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(r.claimed(), equalTo(0));
    assertThat(r.describe(), startsWith("effects paused (since "));
    assertThat(
        r.describe(), org.hamcrest.Matchers.containsString("by alice: generation 2 is wrong"));
    assertThat(provider.requests(), equalTo(0));
    assertThat(states(), equalTo(List.of("PREPARED", "PREPARED", "PREPARED")));

    assertThat(pause.resume(Revisions.MODEL, "alice").changed(), equalTo(true));
    Dispatcher.Report resumed = dispatcher(new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(resumed.paused().isPresent(), equalTo(false));
    assertThat(resumed.describe(), resumed.done(), equalTo(3));
    assertThat(provider.requestsPerKey(), not(hasValue(greaterThan(1))));
    assertThat(provider.requests(), equalTo(3));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());
  }

  @Test
  void aPauseDuringAPassStopsItsNextClaimAndTheEffectInFlightFinishesAndIsRecorded()
      throws Exception {
    AtomicReference<EffectsPause.Change> during = new AtomicReference<>();
    Dispatcher.Hooks operatorPausesMidDelivery =
        new Dispatcher.Hooks() {
          @Override
          public void afterDelivery(String key, EffectProvider.Delivery d) {
            if (during.get() == null) {
              try {
                during.set(pause.pause(Revisions.MODEL, "operator", "incident"));
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            }
          }
        };
    Dispatcher.Report r = dispatcher(operatorPausesMidDelivery).runOnce(10);
    // the pause saw one effect in flight; it finished, DONE with its receipt
    assertThat(during.get().inFlight(), equalTo(1));
    assertThat(r.claimed(), equalTo(1));
    assertThat(r.done(), equalTo(1));
    assertThat(r.paused().isPresent(), equalTo(true));
    assertThat(provider.requests(), equalTo(1));
    assertThat(
        states().stream().sorted().toList(), equalTo(List.of("DONE", "PREPARED", "PREPARED")));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());
  }

  @Test
  void whilePausedAnUnknownEffectIsResolvedByReceiptButNeverDeliveredAgain() throws Exception {
    // the first effect: the answer is lost after the provider applied it; the other two: a 500,
    // by a dispatcher whose provider answers no receipt queries (so the first stays UNKNOWN)
    provider.mode(LocalProviderServer.Mode.ACCEPT_THEN_DROP);
    dispatcher(new Dispatcher.Hooks() {}).runOnce(1);
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    EffectProvider noReceipts =
        new WebhookProvider(
            ProviderSpec.webhook(provider.url(), true, false), Duration.ofMillis(400));
    new Dispatcher(
            pool,
            "d",
            Revisions.MODEL,
            Map.of("reward", noReceipts),
            Duration.ofSeconds(30),
            new Dispatcher.Hooks() {})
        .withBackoff(Duration.ZERO, Duration.ZERO)
        .runOnce(10);
    assertThat(states(), equalTo(List.of("UNKNOWN", "UNKNOWN", "UNKNOWN")));
    assertThat(provider.requests(), equalTo(3));
    assertThat(provider.appliedPerKey().size(), equalTo(1));

    pause.pause(Revisions.MODEL, "operator", null);
    provider.mode(LocalProviderServer.Mode.OK);
    Dispatcher.Report r = dispatcher(new Dispatcher.Hooks() {}).runOnce(10);
    // the receipt records what happened (merchant 1); "never applied" is not sent while paused
    assertThat(r.resolvedDone(), equalTo(1));
    assertThat(r.redispatched(), equalTo(0));
    assertThat(r.stillUnknown(), equalTo(2));
    assertThat(provider.requests(), equalTo(3));

    pause.resume(Revisions.MODEL, "operator");
    Dispatcher.Report resumed = dispatcher(new Dispatcher.Hooks() {}).runOnce(10);
    assertThat(resumed.redispatched(), equalTo(2));
    assertThat(states(), equalTo(List.of("DONE", "DONE", "DONE")));
    assertThat(provider.appliedPerKey(), not(hasValue(greaterThan(1))));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());
  }
}

package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasValue;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.EffectsPause;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.schemas.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Effects follow promotion and rollback (docs/semantics.md §10.11, issue 33): moving the alias
 * evaluates the reward rule ({@code revenue >= 1000}) on the newly canonical values, in the same
 * transaction. Counted at the provider, which does not dedupe: a second effect for a key would be a
 * second request.
 */
class AliasEffectsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Schema OUTPUT =
      Schema.builder()
          .addFields(Revisions.KEY.getFields())
          .addFields(Revisions.VALUES.getFields())
          .build();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectsLedger effects;
  private EffectRule rule;
  private LedgerWriter writer;
  private Ledger ledger;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    provider = LocalProviderServer.start(0);
    provider.dedupe(false);
    effects = new EffectsLedger(pool);
    rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(provider.url(), true, true));
    writer = new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule));
    ledger = Ledger.at(pool);
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private Dispatcher.Report dispatch() throws Exception {
    EffectProvider p = new WebhookProvider(rule.provider(), Duration.ofSeconds(2));
    return new Dispatcher(
            pool,
            "d",
            Revisions.MODEL,
            Map.of("reward", p),
            Duration.ofSeconds(30),
            new Dispatcher.Hooks() {})
        .withBackoff(Duration.ZERO, Duration.ZERO)
        .withReevaluation(Ledger.reevaluation(List.of(rule), OUTPUT))
        .runOnce(100);
  }

  /** The effect's state, generation, revision and the revenue of its payload. */
  private String effectOf(long merchant) throws Exception {
    for (EffectsLedger.Effect e : effects.effects(Revisions.MODEL)) {
      if (e.subject().equals(String.valueOf(merchant))) {
        return e.state() + " generation " + e.generation() + " revision " + e.revision();
      }
    }
    return "none";
  }

  /**
   * Audit: an UNKNOWN effect a receipt query found never applied was delivered again although a
   * rollback had made its rule false on the canonical values (generation 1, revenue 900): the
   * redelivery confirmed only the pause. It is now confirmed as a claim is: its generation and
   * revision are no longer canonical, so its rule is evaluated on the canonical values first and
   * the effect is CANCELLED, nothing sent; the compensation the rollback recorded stays open.
   */
  @Test
  void anUnknownEffectWhoseRuleARollbackMadeFalseIsCancelledNotDeliveredAgain() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "900")));
    writer.write(List.of(revision(7, 10, 1, "1200", 2)));
    assertThat(alias(2).effects().prepared(), equalTo(1));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(dispatch().unknown(), equalTo(1));
    // the rollback: the rule is false on generation 1; the effect was dispatched, so a
    // compensation for a person, the row left UNKNOWN
    assertThat(alias(1).effects().compensations(), equalTo(1));
    provider.mode(LocalProviderServer.Mode.OK);
    Dispatcher.Report r = dispatch();
    assertThat(r.describe(), r.redispatched(), equalTo(0));
    assertThat(r.describe(), r.claimed() + r.done(), equalTo(0));
    // cancelled by the canonical revision that made its rule false, as the outbox records it
    assertThat(effectOf(7), equalTo("CANCELLED generation 1 revision 1"));
    assertThat(provider.requests(keyOf(7)), equalTo(1));
    assertThat(provider.applied(keyOf(7)), equalTo(0));
    // a further pass sends nothing either
    assertThat(dispatch().claimed(), equalTo(0));
    assertThat(provider.requests(keyOf(7)), equalTo(1));
    assertThat(effects.compensations(Revisions.MODEL).size(), equalTo(1));
    atMostOneEffectPerKey();
  }

  /** The same within one generation: a correction made the rule false while it was UNKNOWN. */
  @Test
  void anUnknownEffectWhoseRuleACorrectionMadeFalseIsCancelledNotDeliveredAgain() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(dispatch().unknown(), equalTo(1));
    assertThat(
        writer.write(List.of(revision(7, 10, 2, "900"))).effects().compensations(), equalTo(1));
    provider.mode(LocalProviderServer.Mode.OK);
    Dispatcher.Report r = dispatch();
    assertThat(r.describe(), r.redispatched(), equalTo(0));
    assertThat(r.describe(), r.claimed() + r.done(), equalTo(0));
    assertThat(effectOf(7), equalTo("CANCELLED generation 1 revision 2"));
    assertThat(provider.requests(keyOf(7)), equalTo(1));
    // a later revision that makes it true again prepares it again, delivered under the same key
    writer.write(List.of(revision(7, 10, 3, "1300")));
    Dispatcher.Report again = dispatch();
    assertThat(again.describe(), again.done(), equalTo(1));
    assertThat(effectOf(7), equalTo("DONE generation 1 revision 3"));
    assertThat(provider.applied(keyOf(7)), equalTo(1));
    assertThat(provider.requests(keyOf(7)), equalTo(2));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());
  }

  /**
   * Still true on a newer canonical revision: the redelivery follows that revision (its payload),
   * as a claim of a PREPARED effect would, rather than sending the values it had when it went
   * UNKNOWN.
   */
  @Test
  void anUnknownEffectStillTrueOnANewerRevisionIsDeliveredWithThatRevision() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    assertThat(dispatch().unknown(), equalTo(1));
    writer.write(List.of(revision(7, 10, 2, "1500")));
    provider.mode(LocalProviderServer.Mode.OK);
    Dispatcher.Report r = dispatch();
    assertThat(r.describe(), r.done(), equalTo(1));
    assertThat(effectOf(7), equalTo("DONE generation 1 revision 2"));
    assertThat(provider.applied(keyOf(7)), equalTo(1));
    assertThat(provider.requests(keyOf(7)), equalTo(2));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());
  }

  private Ledger.AliasChange alias(int generation) throws Exception {
    return ledger.setCanonicalGeneration(
        AliasRequest.of(Revisions.MODEL, generation).withEffects(List.of(rule), OUTPUT));
  }

  private static String keyOf(long merchant) {
    return EffectIdentity.effectKey(
        "reward", revision(merchant, 10, 1, "0").logicalWindowId(), merchant);
  }

  /** Each merchant's effect state (merchant -> state). */
  private Map<Long, String> states() throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (EffectsLedger.Effect e : effects.effects(Revisions.MODEL)) {
      out.put(Long.parseLong(e.subject()), e.state());
    }
    return out;
  }

  private void atMostOneEffectPerKey() throws Exception {
    assertThat(provider.requestsPerKey(), not(hasValue(greaterThan(1))));
    assertThat(provider.appliedPerKey(), not(hasValue(greaterThan(1))));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());
  }

  @Test
  void promotionAndRollbackEvaluateEveryRuleOnTheNewlyCanonicalValues() throws Exception {
    // generation 1 (canonical): merchant 2's reward is delivered, merchant 4's is still PREPARED
    writer.write(List.of(revision(1, 10, 1, "900"), revision(2, 10, 1, "1500")));
    assertThat(dispatch().done(), equalTo(1));
    writer.write(List.of(revision(4, 10, 1, "2000")));
    // generation 2 (shadow) computes other values: it prepares nothing while it is not canonical
    LedgerWriter.Outcome shadow =
        writer.write(
            List.of(
                revision(1, 10, 1, "1100", 2),
                revision(2, 10, 1, "800", 2),
                revision(3, 10, 1, "1200", 2),
                revision(4, 10, 1, "700", 2)));
    assertThat(shadow.effects(), equalTo(LedgerWriter.Effects.NONE));

    Ledger.AliasChange promoted = alias(2);
    // merchants 1 and 3 now true: PREPARED; merchant 4 now false before dispatch: CANCELLED;
    // merchant 2 DONE and now false: a compensation, not a second effect
    assertThat(promoted.effects(), equalTo(new LedgerWriter.Effects(2, 0, 1, 1, 0)));
    assertThat(
        states(), equalTo(Map.of(1L, "PREPARED", 2L, "DONE", 3L, "PREPARED", 4L, "CANCELLED")));
    assertThat(effects.compensations(Revisions.MODEL).get(0).reason(), equalTo("rule_false"));
    assertThat(dispatch().done(), equalTo(2));

    Ledger.AliasChange rolledBack = alias(1);
    // merchant 1 DONE and false again: a compensation; merchant 4 true again: PREPARED;
    // merchant 3 has no window in generation 1: left as it is; merchant 2 is as delivered
    assertThat(rolledBack.effects(), equalTo(new LedgerWriter.Effects(1, 0, 0, 1, 0)));
    assertThat(dispatch().done(), equalTo(1));
    assertThat(states(), equalTo(Map.of(1L, "DONE", 2L, "DONE", 3L, "DONE", 4L, "DONE")));
    assertThat(provider.requests(), equalTo(4));
    assertThat(effects.compensations(Revisions.MODEL).size(), equalTo(2));
    atMostOneEffectPerKey();
  }

  @Test
  void aPreparedEffectFollowsThePromotionToTheSameValuesAndIsDeliveredOnce() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    writer.write(List.of(revision(7, 10, 1, "1200", 2)));
    Ledger.AliasChange promoted = alias(2);
    assertThat(promoted.effects().updated(), equalTo(1));
    Dispatcher.Report r = dispatch();
    assertThat(r.describe(), r.done(), equalTo(1));
    assertThat(provider.requests(keyOf(7)), equalTo(1));
    atMostOneEffectPerKey();
  }

  @Test
  void aKeyAlreadyDoneIsNeverSentAgainHoweverOftenTheAliasMoves() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    dispatch();
    writer.write(List.of(revision(7, 10, 1, "1300", 2)));
    int compensations = 0;
    for (int generation : new int[] {2, 1, 2, 1, 2}) {
      compensations += alias(generation).effects().compensations();
      assertThat(dispatch().claimed(), equalTo(0));
    }
    // one compensation (payload changed by generation 2 revision 1), recorded once
    assertThat(compensations, equalTo(1));
    assertThat(effects.compensations(Revisions.MODEL).size(), equalTo(1));
    assertThat(provider.requests(), equalTo(1));
    atMostOneEffectPerKey();
  }

  @Test
  void pauseEffectsMovesTheAliasAndPausesInOneTransaction() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "900")));
    writer.write(List.of(revision(7, 10, 1, "1200", 2)));
    EffectsPause pause = new EffectsPause(pool);
    // refused (generation 9 has no projection): neither the alias nor the pause changed
    assertThrows(
        Ledger.EmptyGeneration.class,
        () ->
            ledger.setCanonicalGeneration(
                AliasRequest.of(Revisions.MODEL, 9).withPauseEffects("alice", "incident")));
    assertThat(pause.state(Revisions.MODEL).isPresent(), equalTo(false));
    assertThat(ledger.canonicalGeneration(Revisions.MODEL).getAsInt(), equalTo(1));

    Ledger.AliasChange promoted =
        ledger.setCanonicalGeneration(
            AliasRequest.of(Revisions.MODEL, 2)
                .withEffects(List.of(rule), OUTPUT)
                .withPauseEffects("alice", "canary looks wrong"));
    assertThat(promoted.pause().get().changed(), equalTo(true));
    assertThat(promoted.effects().prepared(), equalTo(1));
    Dispatcher.Report r = dispatch();
    assertThat(r.claimed(), equalTo(0));
    assertThat(r.paused().get().by(), equalTo("alice"));
    assertThat(provider.requests(), equalTo(0));
  }
}

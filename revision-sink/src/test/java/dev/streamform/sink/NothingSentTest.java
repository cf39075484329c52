package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.ProviderSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A delivery that sent nothing while a correction moved its window: the correction, finding the
 * effect DISPATCHING, recorded a compensation and left the effect alone; the dispatcher then put it
 * back PREPARED at the revision it was claimed at, which is no longer its window's, so it was never
 * claimed again and the compensation said, for a person, that an effect happened that never did
 * (review of effects #3). Now the effect is evaluated on the canonical values as a redelivery after
 * "never applied" is (ADR 0159), and the compensation is closed as nothing sent (ADR 0202).
 */
class NothingSentTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Schema OUTPUT =
      Schema.builder()
          .addFields(Revisions.KEY.getFields())
          .addFields(Revisions.VALUES.getFields())
          .build();

  private HikariDataSource pool;
  private EffectsLedger effects;
  private EffectRule rule;
  private LedgerWriter writer;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    effects = new EffectsLedger(pool);
    rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook("http://127.0.0.1:9/effects", true, true));
    writer = new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule));
  }

  @AfterEach
  void close() {
    pool.close();
  }

  /**
   * A provider whose first delivery commits {@code correction} (the sink's transaction, while the
   * effect is DISPATCHING) and then sends nothing; later deliveries are applied.
   */
  private static final class CorrectedMidDelivery implements EffectProvider {
    final List<String> payloads = new ArrayList<>();
    private final Runnable correction;

    CorrectedMidDelivery(Runnable correction) {
      this.correction = correction;
    }

    @Override
    public boolean idempotencyKeys() {
      return true;
    }

    @Override
    public boolean receiptQueries() {
      return true;
    }

    @Override
    public Duration timeout() {
      return Duration.ofSeconds(1);
    }

    @Override
    public Delivery deliver(String effectKey, String payloadJson) {
      payloads.add(payloadJson);
      if (payloads.size() == 1) {
        correction.run();
        return new NotSent("the provider's authorization file /run/token is empty");
      }
      return new Applied("rcpt-" + payloads.size());
    }

    @Override
    public Lookup lookup(String effectKey) {
      return new NotFound();
    }
  }

  private Runnable correct(String revenue) {
    return () -> {
      try {
        writer.write(List.of(revision(7, 10, 2, revenue)));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private Dispatcher dispatcher(EffectProvider p) {
    return new Dispatcher(
            pool,
            "d",
            Revisions.MODEL,
            Map.of("reward", p),
            Duration.ofSeconds(30),
            new Dispatcher.Hooks() {})
        .withBackoff(Duration.ZERO, Duration.ZERO)
        .withReevaluation(Ledger.reevaluation(List.of(rule), OUTPUT));
  }

  @Test
  void aRuleMadeFalseWhileNothingWasSentCancelsTheEffectAndClosesItsCompensation()
      throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    CorrectedMidDelivery provider = new CorrectedMidDelivery(correct("500"));
    Dispatcher d = dispatcher(provider);
    Dispatcher.Report first = d.runOnce(10);
    // counted as cancelled: it is not "prepared again"
    assertThat(first.describe(), first.notSent(), equalTo(0));
    assertThat(first.describe(), first.cancelled(), equalTo(1));
    assertThat(
        first.describe(),
        containsString(
            "1 found never applied and cancelled, nothing sent (its rule is false on the"
                + " canonical values now)"));

    List<EffectsLedger.Effect> now = effects.effects(Revisions.MODEL);
    assertThat(now.get(0).state() + " r" + now.get(0).revision(), equalTo("CANCELLED r2"));
    List<EffectsLedger.Compensation> k = effects.compensations(Revisions.MODEL);
    assertThat(k, hasSize(1));
    assertThat(k.get(0).reason(), equalTo("rule_false"));
    assertThat(k.get(0).closed(), notNullValue());
    assertThat(k.get(0).closed(), containsString("nothing was sent"));
    EffectsLedger.Verification v = effects.verify(Revisions.MODEL);
    assertThat(v.problems(), empty());
    assertThat(v.figures().get("open compensations"), equalTo(0));

    d.runOnce(10);
    assertThat(provider.payloads, hasSize(1));
  }

  /**
   * The outcome of an attempt that sent nothing is written under the alias (its re-evaluation reads
   * it): held longer than the lease, the outcome is kept at once and the pass names who holds the
   * alias, where it said "database unavailable" after three waits of a lease each (found by the
   * verification of ADR 0202).
   */
  @Test
  void anAliasHeldWhenNothingWasSentKeepsTheOutcomeAndSaysWhoHoldsIt() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    java.sql.Connection[] held = {null};
    CorrectedMidDelivery provider =
        new CorrectedMidDelivery(
            () -> {
              try {
                held[0] = pool.getConnection();
                held[0].setAutoCommit(false);
                try (java.sql.Statement s = held[0].createStatement()) {
                  s.execute("SET LOCAL application_name = 'alias-held-by-hand'");
                  s.executeQuery(
                          "SELECT 1 FROM streamform.canonical_alias WHERE model = '"
                              + Revisions.MODEL
                              + "' FOR UPDATE")
                      .close();
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    Dispatcher d =
        new Dispatcher(
                pool,
                "d",
                Revisions.MODEL,
                Map.of("reward", provider),
                Duration.ofMillis(1_500),
                new Dispatcher.Hooks() {})
            .withBackoff(Duration.ZERO, Duration.ZERO)
            .withReevaluation(Ledger.reevaluation(List.of(rule), OUTPUT));
    long start = System.nanoTime();
    Dispatcher.Report first = d.runOnce(10);
    long millis = (System.nanoTime() - start) / 1_000_000;
    try {
      assertThat(first.describe(), first.aliasHeld(), containsString("alias-held-by-hand"));
      assertThat(first.describe(), not(containsString("database unavailable")));
      assertThat(first.describe(), containsString("1 outcome not yet written, kept to be written"));
      assertThat("one wait of the lease, not three: " + millis, millis < 3_000, equalTo(true));
    } finally {
      held[0].rollback();
      held[0].close();
    }
    // the alias free again: the kept outcome is written and the effect re-evaluated
    d.runOnce(10);
    List<EffectsLedger.Effect> now = effects.effects(Revisions.MODEL);
    assertThat(now.get(0).state() + " r" + now.get(0).revision(), equalTo("DONE r1"));
    assertThat(provider.payloads, hasSize(2));
  }

  @Test
  void aPayloadChangedWhileNothingWasSentIsSentWithTheCanonicalValues() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    CorrectedMidDelivery provider = new CorrectedMidDelivery(correct("1300"));
    Dispatcher d = dispatcher(provider);
    assertThat(d.runOnce(10).notSent(), equalTo(1));
    List<EffectsLedger.Effect> now = effects.effects(Revisions.MODEL);
    assertThat(now.get(0).state() + " r" + now.get(0).revision(), equalTo("PREPARED r2"));

    // the next pass sends it, with revision 2's values
    assertThat(d.runOnce(10).done(), equalTo(1));
    assertThat(provider.payloads, hasSize(2));
    assertThat(provider.payloads.get(1), containsString("1300"));
    List<EffectsLedger.Compensation> k = effects.compensations(Revisions.MODEL);
    assertThat(k, hasSize(1));
    assertThat(k.get(0).reason(), equalTo("payload_changed"));
    assertThat(k.get(0).closed(), containsString("nothing was sent"));
    EffectsLedger.Verification v = effects.verify(Revisions.MODEL);
    assertThat(v.problems(), empty());
    assertThat(v.figures().get("open compensations"), equalTo(0));
    assertThat(
        effects.effects(Revisions.MODEL).stream()
            .map(e -> e.state() + " r" + e.revision())
            .toList(),
        contains("DONE r2"));
  }
}

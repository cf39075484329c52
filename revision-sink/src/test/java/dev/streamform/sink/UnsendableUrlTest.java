package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A delivery that fails before any I/O — a provider url no connection can be made to — sent
 * nothing: the effect is PREPARED again, its last error in plain language, never UNKNOWN with the
 * JDK's exception (ADR 0185; found by a read-only audit of the effects dispatcher: {@code
 * connection broken: java.lang.IllegalArgumentException: port out of range:99999}).
 */
class UnsendableUrlTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 4, 2_000);
  }

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  void aUrlWithAnImpossiblePortSendsNothingAndLeavesTheEffectPrepared() throws Exception {
    String url = "http://127.0.0.1:99999/effects";
    EffectRule rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(url, true, true));
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, 1, "1200")));
    Dispatcher d =
        new Dispatcher(
            pool,
            "d",
            Revisions.MODEL,
            Map.of("reward", new WebhookProvider(rule.provider(), Duration.ofSeconds(2))),
            Duration.ofSeconds(30),
            new Dispatcher.Hooks() {});
    Dispatcher.Report r = d.runOnce(10);
    System.out.println("a url with port 99999: " + r.describe());
    assertThat(r.describe(), r.notSent(), equalTo(1));
    assertThat(r.unknown(), equalTo(0));
    EffectsLedger.Effect e = new EffectsLedger(pool).effects(Revisions.MODEL).get(0);
    System.out.println("its last error: " + e.lastError());
    assertThat(e.state(), equalTo("PREPARED"));
    assertThat(
        e.lastError(),
        equalTo(
            "the provider's url "
                + url
                + " has port 99999, outside 1 to 65535: nothing was sent; correct the url in the"
                + " project (streamform check names it)"));
    assertThat(e.lastError(), not(Matchers.containsString("java.")));
  }
}

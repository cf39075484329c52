package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A prepared effect of a type the dispatcher has no provider for (a rule the project no longer
 * declares) is said as that, with the type, not as waiting for its canonical revision, which it has
 * (found by a read-only audit of effects: {@code 5 waiting for their canonical revision}).
 */
class UndeclaredEffectTypeTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;

  @BeforeEach
  void fresh() {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 2, 2_000);
  }

  @AfterEach
  void close() {
    pool.close();
  }

  private static EffectRule rule(String type) throws Exception {
    return EffectRule.of(
        Revisions.MODEL,
        type,
        "merchant_id",
        "revenue >= 10",
        ProviderSpec.webhook("http://127.0.0.1:9/effects", true, true));
  }

  @Test
  void anEffectOfATypeWithNoProviderHereIsNamedAsSuch() throws Exception {
    EffectRule reward = rule("reward");
    EffectRule badge = rule("badge");
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(badge))
        .write(List.of(revision(7, 10, 1, "30")));
    Dispatcher.Report r =
        new Dispatcher(
                pool,
                "d",
                Revisions.MODEL,
                Map.of("reward", new WebhookProvider(reward.provider(), Duration.ofMillis(500))),
                Duration.ofSeconds(30),
                new Dispatcher.Hooks() {})
            .runOnce(10);
    assertThat(r.claimed(), equalTo(0));
    assertThat(r.describe(), containsString("0 waiting for their canonical revision;"));
    assertThat(
        r.describe(),
        containsString(
            "; 1 of an effect type this dispatcher has no provider for (badge): declare its rule"
                + " in the project, or dispatch it with the project that does"));
  }
}

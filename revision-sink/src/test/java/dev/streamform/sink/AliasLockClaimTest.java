package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.nullValue;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A claim that waited for the model's alias (an {@code alias set}, or a person's transaction,
 * holding it {@code FOR UPDATE}) starts its lease when it takes the effect, not when its
 * transaction began: the lease was shortened by the wait, possibly over before the claim committed,
 * and another dispatcher sent the effect again while the first request was in flight (review of
 * effects #1). An alias held longer than the lease is not waited for: the pass claims nothing and
 * says who holds it (ADR 0201).
 */
class AliasLockClaimTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectRule rule;
  private LedgerWriter writer;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    provider = LocalProviderServer.start(0);
    rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(provider.url(), true, true));
    writer = new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule));
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private Dispatcher dispatcher(Duration lease) {
    EffectProvider p = new WebhookProvider(rule.provider(), Duration.ofSeconds(1));
    return new Dispatcher(
            pool, "d", Revisions.MODEL, Map.of("reward", p), lease, new Dispatcher.Hooks() {})
        .withBackoff(Duration.ZERO, Duration.ZERO);
  }

  /** A transaction holding the model's alias FOR UPDATE, as an alias set that has not committed. */
  private Connection holdAlias() throws Exception {
    Connection c = pool.getConnection();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL application_name = 'alias-held-by-hand'");
      s.executeQuery(
              "SELECT 1 FROM streamform.canonical_alias WHERE model = '"
                  + Revisions.MODEL
                  + "' FOR UPDATE")
          .close();
    }
    return c;
  }

  private static String clock(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT clock_timestamp()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private double seconds(String sql) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      double v = rs.getDouble(1);
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return v;
    }
  }

  @Test
  void aClaimThatWaitedForTheAliasTakesItsWholeLease() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    Dispatcher d = dispatcher(Duration.ofSeconds(30));
    String released;
    CompletableFuture<Dispatcher.Report> pass;
    try (Connection held = holdAlias()) {
      pass =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return d.runOnce(10);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      Thread.sleep(2_000);
      released = clock(held);
      held.commit();
    }
    assertThat(pass.get(20, TimeUnit.SECONDS).done(), equalTo(1));
    // the database's clock: the claim took the effect after the alias was released
    assertThat(
        seconds(
            "SELECT extract(epoch FROM dispatched_at - '" + released + "') FROM streamform.effect"),
        greaterThanOrEqualTo(0.0));
    assertThat(
        seconds(
            "SELECT extract(epoch FROM at - '"
                + released
                + "') FROM streamform.effect_transition WHERE to_state = 'DISPATCHING'"),
        greaterThanOrEqualTo(0.0));
    // its lease is the whole 30 s from then (the claim committed right after)
    double lease =
        seconds(
            "SELECT extract(epoch FROM lease_until - '" + released + "') FROM streamform.effect");
    assertThat(lease, greaterThanOrEqualTo(30.0));
    assertThat(lease, lessThan(31.0));
  }

  @Test
  void anAliasHeldLongerThanTheLeaseStopsTheClaimsAndSaysWhoHoldsIt() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    Dispatcher d = dispatcher(Duration.ofSeconds(2));
    Dispatcher.Report r;
    long took;
    try (Connection held = holdAlias()) {
      long start = System.nanoTime();
      CompletableFuture<Dispatcher.Report> pass =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return d.runOnce(10);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      try {
        // a dispatcher that waited for ever behind it never got here
        r = pass.get(10, TimeUnit.SECONDS);
      } finally {
        held.commit();
      }
      took = (System.nanoTime() - start) / 1_000_000;
    }
    assertThat(took, lessThan(10_000L));
    assertThat(r.claimed(), equalTo(0));
    assertThat(r.aliasHeld(), containsString("application alias-held-by-hand"));
    assertThat(r.aliasHeld(), containsString("FOR UPDATE"));
    assertThat(
        r.describe(),
        containsString(
            "; nothing more claimed in this pass: the model's alias was held longer than the"
                + " lease by pid "));
    assertThat(
        seconds("SELECT count(*) FROM streamform.effect WHERE state = 'PREPARED'"), equalTo(1.0));
    // released: the next pass claims it
    Dispatcher.Report next = d.runOnce(10);
    assertThat(next.done(), equalTo(1));
    assertThat(next.aliasHeld(), nullValue());
  }
}

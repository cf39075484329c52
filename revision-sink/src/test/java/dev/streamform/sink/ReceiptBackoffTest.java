package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectSettlement;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.EffectsPause;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import dev.streamform.transforms.windows.WindowRevision;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Receipt queries of {@code UNKNOWN} effects back off like deliveries (ADR 0108), say why they did
 * not settle the effect, and a pass the database stopped keeps what it counted.
 */
class ReceiptBackoffTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectsLedger effects;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    provider = LocalProviderServer.start(0);
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

  /** The webhook, counting its receipt queries; they fail with {@code failing} while it is set. */
  private static final class Counting implements EffectProvider {
    final EffectProvider inner;
    final AtomicInteger lookups = new AtomicInteger();
    volatile String failing;

    Counting(EffectProvider inner) {
      this.inner = inner;
    }

    @Override
    public boolean idempotencyKeys() {
      return inner.idempotencyKeys();
    }

    @Override
    public boolean receiptQueries() {
      return inner.receiptQueries();
    }

    @Override
    public Delivery deliver(String effectKey, String payloadJson) {
      return inner.deliver(effectKey, payloadJson);
    }

    @Override
    public Lookup lookup(String effectKey) {
      lookups.incrementAndGet();
      String f = failing;
      return f != null ? new Unanswered(f) : inner.lookup(effectKey);
    }

    @Override
    public Duration timeout() {
      return inner.timeout();
    }
  }

  private Counting counting(EffectRule rule) {
    return new Counting(new WebhookProvider(rule.provider(), Duration.ofMillis(400)));
  }

  private Dispatcher dispatcher(DataSource ds, EffectProvider p, Dispatcher.Hooks hooks) {
    return new Dispatcher(
            ds, "d", Revisions.MODEL, Map.of("reward", p), Duration.ofSeconds(30), hooks)
        .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(10));
  }

  /** Passes 20 ms apart for {@code seconds}; the reports of those that asked for a receipt. */
  private List<Dispatcher.Report> passes(Dispatcher d, Counting p, int seconds) throws Exception {
    List<Dispatcher.Report> asked = new ArrayList<>();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      int before = p.lookups.get();
      Dispatcher.Report r = d.runOnce(10);
      if (p.lookups.get() > before) {
        asked.add(r);
      }
      Thread.sleep(20);
    }
    return asked;
  }

  private String key() {
    WindowRevision r = revision(7, 10, 1, "1200");
    return EffectIdentity.effectKey("reward", r.logicalWindowId(), r.key().getInt64("merchant_id"));
  }

  private int attempts() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT attempts FROM streamform.effect")) {
      rs.next();
      int n = rs.getInt(1);
      c.commit();
      return n;
    }
  }

  @Test
  void anUnknownEffectFoundNeverAppliedThatCannotBeSentAgainIsAskedAboutWithBackoff()
      throws Exception {
    // idempotency none: after its 500 the effect is never sent again, whatever a receipt says
    EffectRule rule = rule(false, true);
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    Counting p = counting(rule);
    Dispatcher d = dispatcher(pool, p, new Dispatcher.Hooks() {});
    assertThat(d.runOnce(10).unknown(), equalTo(1));
    provider.mode(LocalProviderServer.Mode.OK);
    List<Dispatcher.Report> asked = passes(d, p, 3);
    System.out.println(
        "UNKNOWN, idempotency none, passes 20 ms apart for 3 s, backoff 100 ms doubling: "
            + p.lookups.get()
            + " receipt queries; a pass that asked: "
            + asked.get(0).describe());
    // queries at about 0, 0.2, 0.6, 1.4 and 3.0 s: at most 6 in 3 s, not one per pass
    assertThat(p.lookups.get(), lessThanOrEqualTo(6));
    assertThat(p.lookups.get(), greaterThanOrEqualTo(3));
    assertThat(asked.get(0).receiptsForAPerson(), equalTo(1));
    assertThat(
        asked.get(0).describe(),
        containsString(
            "1 found never applied and left UNKNOWN for a person (its provider does not dedupe"
                + " by key, so it is never sent again)"));
    // never sent again, still UNKNOWN, and effects show says why it waits
    assertThat(provider.requests(key()), equalTo(1));
    EffectsLedger.Effect e = effects.effects(Revisions.MODEL).get(0);
    assertThat(e.state(), equalTo("UNKNOWN"));
    assertThat(e.lastError(), containsString("HTTP 500"));
    assertThat(e.lastError(), containsString("never applied; not sent again: for a person"));
    // the delivery was the only claim; the queries count towards the backoff, not as deliveries
    assertThat(attempts(), equalTo(1));
  }

  @Test
  void anUnknownEffectFoundNeverAppliedWhileEffectsArePausedIsAskedAboutWithBackoff()
      throws Exception {
    EffectRule rule = rule(true, true);
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    Counting p = counting(rule);
    Dispatcher d = dispatcher(pool, p, new Dispatcher.Hooks() {});
    assertThat(d.runOnce(10).unknown(), equalTo(1));
    provider.mode(LocalProviderServer.Mode.OK);
    new EffectsPause(pool).pause(Revisions.MODEL, "operator", null);
    passes(d, p, 3);
    // queries at about 0, 0.2, 0.6, 1.4 and 3.0 s, as without the pause: not one per pass
    assertThat(p.lookups.get(), lessThanOrEqualTo(6));
    assertThat(p.lookups.get(), greaterThanOrEqualTo(3));
    assertThat(provider.requests(key()), equalTo(1));
    EffectsLedger.Effect e = effects.effects(Revisions.MODEL).get(0);
    assertThat(e.state(), equalTo("UNKNOWN"));
    assertThat(e.lastError(), containsString("delivered again once the model's effects resume"));
    // resumed: delivered again once its backoff is over, once
    new EffectsPause(pool).resume(Revisions.MODEL, "operator");
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              d.runOnce(10);
              return effects.effects(Revisions.MODEL).get(0).state().equals("DONE");
            });
    assertThat(provider.requests(key()), equalTo(2));
  }

  @Test
  void anEffectSettledNeverAppliedIsDeliveredByTheNextPassNotAfterItsBackoff() throws Exception {
    EffectRule rule = rule(true, true);
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    Counting p = counting(rule);
    // a backoff of a minute after the 500: without the settlement nothing is due for a minute
    Dispatcher d =
        new Dispatcher(
                pool,
                "d",
                Revisions.MODEL,
                Map.of("reward", p),
                Duration.ofSeconds(30),
                new Dispatcher.Hooks() {})
            .withBackoff(Duration.ofMinutes(1), Duration.ofMinutes(5));
    assertThat(d.runOnce(10).unknown(), equalTo(1));
    provider.mode(LocalProviderServer.Mode.OK);
    new EffectSettlement(pool)
        .notApplied(Revisions.MODEL, key().substring(0, 12), "alice", "checked at the provider");
    // as effects settle says: the next dispatcher pass delivers it again
    assertThat(d.runOnce(10).done(), equalTo(1));
    assertThat(provider.requests(key()), equalTo(2));
    assertThat(effects.effects(Revisions.MODEL).get(0).state(), equalTo("DONE"));
  }

  @Test
  void aReceiptQueryThatFailsBacksOffSaysWhyAndTheEffectIsResolvedOnceItAnswers() throws Exception {
    EffectRule rule = rule(true, true);
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, 1, "1200")));
    provider.mode(LocalProviderServer.Mode.FAIL_500);
    Counting p = counting(rule);
    p.failing = "HTTP 500";
    Dispatcher d = dispatcher(pool, p, new Dispatcher.Hooks() {});
    assertThat(d.runOnce(10).unknown(), equalTo(1));
    List<Dispatcher.Report> asked = passes(d, p, 3);
    System.out.println(
        "UNKNOWN, receipt queries failing, passes 20 ms apart for 3 s, backoff 100 ms doubling: "
            + p.lookups.get()
            + " receipt queries; a pass that asked: "
            + asked.get(0).describe());
    assertThat(p.lookups.get(), lessThanOrEqualTo(6));
    assertThat(asked.get(0).receiptFailures(), equalTo(1));
    assertThat(asked.get(0).describe(), containsString("1 receipt query failed (last: HTTP 500)"));
    EffectsLedger.Effect e = effects.effects(Revisions.MODEL).get(0);
    assertThat(e.lastError(), containsString("receipt query failed: HTTP 500"));
    assertThat(provider.requests(key()), equalTo(1));
    // the provider recovers: the next due query says never applied, delivered again under the key
    p.failing = null;
    provider.mode(LocalProviderServer.Mode.OK);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!effects.effects(Revisions.MODEL).get(0).state().equals("DONE")
        && System.nanoTime() < end) {
      d.runOnce(10);
      Thread.sleep(50);
    }
    e = effects.effects(Revisions.MODEL).get(0);
    assertThat(e.state(), equalTo("DONE"));
    assertThat(provider.requests(key()), equalTo(2));
    assertThat(provider.applied(key()), equalTo(1));
  }

  /** {@code pool}, refusing every connection while {@code down} is set. */
  private static DataSource switchable(DataSource pool, boolean[] down) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) -> {
              if (m.getName().equals("getConnection") && down[0]) {
                throw new SQLException("Connection refused (the test's database is down)");
              }
              try {
                return m.invoke(pool, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void aPassTheDatabaseStoppedKeepsTheCountsItMade() throws Exception {
    EffectRule rule = rule(true, true);
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(
            List.of(
                revision(1, 10, 1, "1200"),
                revision(2, 10, 1, "1200"),
                revision(3, 10, 1, "1200")));
    boolean[] down = {false};
    AtomicInteger delivered = new AtomicInteger();
    Dispatcher d =
        dispatcher(
            switchable(pool, down),
            counting(rule),
            new Dispatcher.Hooks() {
              @Override
              public void afterDelivery(String key, EffectProvider.Delivery delivery) {
                if (delivered.incrementAndGet() == 2) {
                  down[0] = true;
                }
              }
            });
    Dispatcher.PassFailed failed = assertThrows(Dispatcher.PassFailed.class, () -> d.runOnce(10));
    System.out.println("a pass the database stopped: " + failed.report().describe());
    assertThat(failed.report().claimed(), equalTo(2));
    assertThat(failed.report().done(), equalTo(1));
    assertThat(failed.report().unwritten(), equalTo(1));
    assertThat(failed.getMessage(), containsString("Connection refused"));
    down[0] = false;
    Dispatcher.Report next = d.runOnce(10);
    // what the two passes print adds up: 3 claimed, 3 done
    assertThat(failed.report().claimed() + next.claimed(), equalTo(3));
    assertThat(failed.report().done() + next.done(), equalTo(3));
    assertThat(provider.requests(), equalTo(3));
  }
}

package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a provider answers is stored as the database can take it (ADR 0184): a receipt or an error
 * body holding a NUL (PostgreSQL refuses 0x00 in text) is stored with the NUL escaped, a body past
 * the maximum is stored cut, saying so — and the effect moves as it would have, no other effect
 * held back. A write the database refuses for its data (SQLState class 22 or 23) is named as such,
 * never "database unavailable".
 */
class ProviderTextTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;
  private HttpServer server;
  private EffectsLedger effects;

  /** The stand-in provider's answers: to a delivery (POST) and to a receipt query (GET). */
  private volatile int deliveryStatus = 200;

  private volatile byte[] deliveryBody = new byte[0];
  private volatile int lookupStatus = 404;
  private volatile byte[] lookupBody = new byte[0];
  private final AtomicInteger deliveries = new AtomicInteger();

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 4, 2_000);
    effects = new EffectsLedger(pool);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/effects",
        x -> {
          try (x) {
            x.getRequestBody().readAllBytes();
            if (x.getRequestMethod().equals("POST")) {
              deliveries.incrementAndGet();
              answer(x, deliveryStatus, deliveryBody);
            } else {
              answer(x, lookupStatus, lookupBody);
            }
          }
        });
    server.start();
  }

  private static void answer(HttpExchange x, int status, byte[] body) throws IOException {
    x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @AfterEach
  void close() {
    server.stop(0);
    pool.close();
  }

  private Dispatcher dispatcher() throws Exception {
    EffectRule rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(
                "http://127.0.0.1:" + server.getAddress().getPort() + "/effects", true, true));
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, 1, "1200"), revision(8, 10, 1, "1300")));
    return new Dispatcher(
            pool,
            "d",
            Revisions.MODEL,
            Map.of("reward", new WebhookProvider(rule.provider(), Duration.ofSeconds(2))),
            Duration.ofSeconds(30),
            new Dispatcher.Hooks() {})
        .withBackoff(Duration.ZERO, Duration.ZERO);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aReceiptWithANulIsStoredEscapedAndNoEffectIsHeldBack() throws Exception {
    deliveryBody = bytes("rcpt\u0000nul");
    Dispatcher d = dispatcher();
    Dispatcher.Report r = d.runOnce(10);
    System.out.println("a receipt with a NUL: " + r.describe());
    assertThat(r.describe(), r.done(), equalTo(2));
    assertThat(r.writeFailures(), equalTo(0));
    assertThat(d.unwrittenOutcomes(), equalTo(0));
    for (EffectsLedger.Effect e : effects.effects(Revisions.MODEL)) {
      assertThat(e.state(), equalTo("DONE"));
      assertThat(e.receipt(), equalTo("rcpt\\u0000nul"));
    }
  }

  @Test
  void anErrorBodyWithANulLeavesTheEffectUnknownSayingSo() throws Exception {
    deliveryStatus = 500;
    deliveryBody = bytes("boom\u0000");
    Dispatcher d = dispatcher();
    Dispatcher.Report r = d.runOnce(10);
    System.out.println("an error body with a NUL: " + r.describe());
    assertThat(r.describe(), r.unknown(), equalTo(2));
    assertThat(r.writeFailures(), equalTo(0));
    for (EffectsLedger.Effect e : effects.effects(Revisions.MODEL)) {
      assertThat(e.state(), equalTo("UNKNOWN"));
      assertThat(e.lastError(), startsWith("HTTP 500 boom\\u0000"));
    }
  }

  @Test
  void aReceiptQueryAnswerWithANulResolvesTheEffect() throws Exception {
    deliveryStatus = 500;
    Dispatcher d = dispatcher();
    assertThat(d.runOnce(10).unknown(), equalTo(2));
    // the provider had applied them after all: its receipt query answers a receipt with a NUL
    lookupStatus = 200;
    lookupBody = bytes("rcpt\u0000q");
    Dispatcher.Report r = d.runOnce(10);
    System.out.println("a receipt query's answer with a NUL: " + r.describe());
    assertThat(r.describe(), r.resolvedDone(), equalTo(2));
    for (EffectsLedger.Effect e : effects.effects(Revisions.MODEL)) {
      assertThat(e.state(), equalTo("DONE"));
      assertThat(e.receipt(), equalTo("rcpt\\u0000q"));
    }
    assertThat(deliveries.get(), equalTo(2));
  }

  @Test
  void aReceiptPastTheMaximumIsStoredCutSayingSo() throws Exception {
    deliveryBody = bytes("r".repeat(5_000_000));
    Dispatcher d = dispatcher();
    Dispatcher.Report r = d.runOnce(10);
    assertThat(r.describe(), r.done(), equalTo(2));
    EffectsLedger.Effect e = effects.effects(Revisions.MODEL).get(0);
    assertThat(e.receipt(), startsWith("rrrr"));
    assertThat(e.receipt().length(), lessThan(10_000));
    assertThat(e.receipt(), containsString("cut: the provider's answer had 5000000 characters"));
  }

  @Test
  void aWriteTheDatabaseRefusesForItsDataIsNamedNotCalledAnOutage() throws Exception {
    deliveryBody = bytes("poison");
    Dispatcher d = dispatcher();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      // a data refusal of the database's own: a check of a receipt (SQLState 23514)
      s.execute(
          "ALTER TABLE streamform.effect ADD CONSTRAINT no_poison CHECK (receipt IS DISTINCT FROM"
              + " 'poison')");
      c.commit();
    }
    Dispatcher.Report r = d.runOnce(1);
    System.out.println("a receipt the database refuses: " + r.describe());
    assertThat(r.writeFailures(), equalTo(3));
    assertThat(r.describe(), not(containsString("database unavailable")));
    assertThat(
        r.describe(),
        containsString(
            "3 outcome writes refused by the database (not an outage: SQLState 23514, ERROR: new"
                + " row for relation \"effect\" violates check constraint \"no_poison\""));
  }
}

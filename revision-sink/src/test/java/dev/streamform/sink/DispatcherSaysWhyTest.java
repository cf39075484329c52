package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dispatcher says why an effect waits (found by a read-only audit of the effects dispatcher):
 * the pass line names why its effects were not sent, and an UNKNOWN effect no receipt query can
 * settle says that it is for a person and how they record what they find.
 */
class DispatcherSaysWhyTest {
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

  private Dispatcher dispatcher(String url, boolean idempotency, boolean receipts)
      throws Exception {
    EffectRule rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(url, idempotency, receipts));
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, 1, "1200"), revision(8, 10, 1, "1300")));
    return new Dispatcher(
        pool,
        "d",
        Revisions.MODEL,
        Map.of("reward", new WebhookProvider(rule.provider(), Duration.ofSeconds(2))),
        Duration.ofSeconds(30),
        new Dispatcher.Hooks() {});
  }

  @Test
  void thePassLineNamesWhyItsEffectsWereNotSent() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + "/effects";
    Dispatcher.Report r = dispatcher(url, true, true).runOnce(10);
    System.out.println("a provider not listening: " + r.describe());
    assertThat(r.notSent(), equalTo(2));
    assertThat(
        r.describe(),
        containsString("2 not sent (prepared again; last: connection refused by " + url + "), "));
  }

  @Test
  void anUnknownEffectNoReceiptQueryCanSettleIsForAPersonNamingEffectsSettle() throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/effects",
        x -> {
          try (x) {
            x.getRequestBody().readAllBytes();
            x.sendResponseHeaders(500, -1);
          }
        });
    server.start();
    try {
      Dispatcher d =
          dispatcher(
              "http://127.0.0.1:" + server.getAddress().getPort() + "/effects", false, false);
      assertThat(d.runOnce(1).unknown(), equalTo(1));
      EffectsLedger.Effect e = new EffectsLedger(pool).effects(Revisions.MODEL).get(0);
      System.out.println("its last error: " + e.lastError());
      assertThat(e.state(), equalTo("UNKNOWN"));
      assertThat(
          e.lastError(),
          equalTo(
              "HTTP 500; for a person: its provider answers no receipt queries, so it is never"
                  + " asked about or sent again — find out at the provider and record it with"
                  + " streamform effects settle"));
    } finally {
      server.stop(0);
    }
  }
}

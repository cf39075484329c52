package dev.streamform.sink.effects;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A receipt query to a provider that is not listening is said as the delivery says it — who refused
 * the connection — not as the JDK's exception class (found by a read-only audit of effects: {@code
 * receipt query failed: java.net.ConnectException}).
 */
class WebhookLookupTest {
  @Test
  void aReceiptQueryToAProviderNotListeningNamesWhoRefused() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + "/effects";
    WebhookProvider provider =
        new WebhookProvider(ProviderSpec.webhook(url, true, true), Duration.ofSeconds(2));
    EffectProvider.Lookup l = provider.lookup("ab".repeat(32));
    assertThat(l, instanceOf(EffectProvider.Unanswered.class));
    assertThat(((EffectProvider.Unanswered) l).reason(), is("connection refused by " + url));
  }

  @Test
  void aReceiptQueryToAnImpossiblePortSaysSoAndDoesNotThrow() {
    // it threw the JDK's IllegalArgumentException out of the dispatcher's pass (ADR 0185)
    String url = "http://127.0.0.1:99999/effects";
    WebhookProvider provider =
        new WebhookProvider(ProviderSpec.webhook(url, true, true), Duration.ofSeconds(2));
    EffectProvider.Lookup l = provider.lookup("ab".repeat(32));
    assertThat(l, instanceOf(EffectProvider.Unanswered.class));
    assertThat(
        ((EffectProvider.Unanswered) l).reason(),
        is(
            "the provider's url "
                + url
                + " has port 99999, outside 1 to 65535: nothing was sent; correct the url in the"
                + " project (streamform check names it)"));
  }

  @Test
  void aReceiptQueryWhoseBodyStallsEndsWithinTheTimeout() throws Exception {
    // the headers come, then 4 of 100 bytes, then nothing: the JDK's request timeout ends at the
    // headers, and the query (so the whole dispatcher) waited for ever (review of effects #2)
    CountDownLatch done = new CountDownLatch(1);
    try (ServerSocket server = new ServerSocket(0)) {
      Thread stall =
          new Thread(
              () -> {
                try (Socket s = server.accept()) {
                  s.getInputStream().read(new byte[8192]);
                  OutputStream out = s.getOutputStream();
                  out.write(
                      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nrcpt"
                          .getBytes(StandardCharsets.US_ASCII));
                  out.flush();
                  done.await(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                  // the test has ended
                }
              });
      stall.setDaemon(true);
      stall.start();
      String url = "http://127.0.0.1:" + server.getLocalPort() + "/effects";
      WebhookProvider provider =
          new WebhookProvider(ProviderSpec.webhook(url, true, true), Duration.ofSeconds(1));
      long start = System.nanoTime();
      EffectProvider.Lookup l;
      try {
        l = provider.lookup("ab".repeat(32));
      } finally {
        done.countDown();
      }
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      assertThat(tookMs, lessThan(3_000L));
      assertThat(l, instanceOf(EffectProvider.Unanswered.class));
      assertThat(((EffectProvider.Unanswered) l).reason(), is("no answer within 1000 ms"));
    }
  }
}

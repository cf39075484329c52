package dev.streamform.sink.effects;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;

import java.net.ServerSocket;
import java.time.Duration;
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
}

package dev.streamform.sink.effects;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The local provider as the demo and the end-to-end test use it: lost answers, counts, receipts.
 */
class LocalProviderServerTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> post(LocalProviderServer s, String key) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(s.url()))
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString("{\"effect_key\":\"" + key + "\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aDeliveryToAnotherPathIsRefusedNamingTheUrlToDeclare() throws Exception {
    try (LocalProviderServer s = LocalProviderServer.start(0)) {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/rewards"))
                  .header("Idempotency-Key", "k1")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"effect_key\":\"k1\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode(), is(404));
      assertThat(
          r.body(),
          is(
              "no such path /rewards: the local provider applies POST /effects and answers GET"
                  + " /effects/<key>; declare url: "
                  + s.url()));
      assertThat(s.requests(), is(0));
      assertThat(s.applied("k1"), is(0));
    }
  }

  /**
   * A request counts once its body has arrived: a caller killed between the headers and the body
   * sent the provider nothing it could apply, so tests that take {@code requests() == 1} as "the
   * provider has the request" (then kill the caller) may rely on it being applied.
   */
  @Test
  void aRequestCutOffBeforeItsBodyArrivedIsNotCounted() throws Exception {
    try (LocalProviderServer s = LocalProviderServer.start(0)) {
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), s.port())) {
        OutputStream out = socket.getOutputStream();
        out.write(
            ("POST /effects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 40\r\n\r\n{\"effect_key\":")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        await().atMost(Duration.ofSeconds(10)).until(() -> s.authorizations().size() == 1);
      } // the caller goes away: the rest of the body never comes
      assertThat(post(s, "k1").statusCode(), is(200));
      await()
          .during(Duration.ofMillis(500))
          .atMost(Duration.ofSeconds(5))
          .until(() -> s.requests() == 1 && s.applied("k1") == 1);
      assertThat(s.requestsPerKey(), is(java.util.Map.of("k1", 1)));
    }
  }

  @Test
  void losesTheNextAnswersButAppliesOnceThenAnswersTheSameReceipt() throws Exception {
    try (LocalProviderServer s = LocalProviderServer.start(0)) {
      List<String> applied = new ArrayList<>();
      s.onApplied((key, receipt) -> applied.add(key + "=" + receipt));
      s.loseAnswers(1);
      assertThrows(IOException.class, () -> post(s, "k1"), "the first answer is lost");
      HttpResponse<String> again = post(s, "k1");
      assertThat(again.statusCode(), is(200));
      assertThat(again.body(), is("rcpt-1"));
      assertThat(get(s.url() + "/k1").body(), is("rcpt-1"));
      assertThat(get(s.url() + "/nope").statusCode(), is(404));
      JsonNode counts = new ObjectMapper().readTree(get(s.url()).body());
      assertThat(counts.get("applied").get("k1").asInt(), is(1));
      assertThat(counts.get("requests").asInt(), is(2));
      assertThat(applied, is(List.of("k1=rcpt-1")));
      assertThat(s.applied("k1"), is(1));
    }
  }

  @Test
  void withoutDedupeASecondDeliveryOfAKeyIsASecondEffectAndEveryRequestIsCounted()
      throws Exception {
    try (LocalProviderServer s = LocalProviderServer.start(0)) {
      s.dedupe(false);
      assertThat(post(s, "k1").body(), is("rcpt-1"));
      assertThat(post(s, "k1").body(), is("rcpt-2"));
      s.mode(LocalProviderServer.Mode.FAIL_500);
      assertThat(post(s, "k2").statusCode(), is(500));
      assertThat(s.applied("k1"), is(2));
      assertThat(s.requests("k1"), is(2));
      assertThat(s.applied("k2"), is(0));
      assertThat(s.requests("k2"), is(1));
      JsonNode counts = new ObjectMapper().readTree(get(s.url()).body());
      assertThat(counts.get("requests_per_key").get("k1").asInt(), is(2));
      assertThat(counts.get("applied").get("k1").asInt(), is(2));
    }
  }

  @Test
  void aDeduplicatedRepeatIsASecondDeliveryAndARefusedRequestIsNone() throws Exception {
    try (LocalProviderServer s = LocalProviderServer.start(0)) {
      assertThat(post(s, "k1").body(), is("rcpt-1"));
      assertThat(post(s, "k1").body(), is("rcpt-1"));
      s.mode(LocalProviderServer.Mode.FAIL_500);
      assertThat(post(s, "k2").statusCode(), is(500));
      JsonNode counts = new ObjectMapper().readTree(get(s.url()).body());
      assertThat(counts.get("applied").get("k1").asInt(), is(1));
      assertThat(counts.get("deliveries_per_key").get("k1").asInt(), is(2));
      assertThat(counts.get("deliveries_per_key").has("k2"), is(false));
      assertThat(counts.get("requests_per_key").get("k2").asInt(), is(1));
    }
  }
}

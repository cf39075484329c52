package dev.streamform.sink.effects;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * An HTTP webhook (JDK {@code java.net.http}): an effect is {@code POST <url>} with the payload as
 * JSON and, when the provider declares idempotency keys, the effect key as {@code Idempotency-Key};
 * a 2xx answer is applied, its body (trimmed) the receipt. A receipt is {@code GET <url>/<key>}: 200
 * with the receipt, 404 never applied. Only a refused connection proves that nothing was sent; a
 * timeout, a broken connection and any non-2xx answer (a 500 may come after the effect was applied)
 * are {@link Unknown}.
 */
public final class WebhookProvider implements EffectProvider {
  private final ProviderSpec spec;
  private final HttpClient client;
  private final Duration timeout;

  public WebhookProvider(ProviderSpec spec, Duration timeout) {
    if (!ProviderSpec.WEBHOOK.equals(spec.kind())) {
      throw new IllegalArgumentException("not a webhook provider: " + spec.describe());
    }
    this.spec = spec;
    this.timeout = timeout;
    this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
  }

  public Duration timeout() {
    return timeout;
  }

  @Override
  public boolean idempotencyKeys() {
    return spec.idempotencyKeys();
  }

  @Override
  public boolean receiptQueries() {
    return spec.receiptQueries();
  }

  @Override
  public Delivery deliver(String effectKey, String payloadJson) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(spec.url()))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(payloadJson, StandardCharsets.UTF_8));
    if (spec.idempotencyKeys()) {
      request.header("Idempotency-Key", effectKey);
    }
    try {
      HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 == 2) {
        String receipt = response.body().trim();
        return new Applied(receipt.isEmpty() ? "HTTP " + response.statusCode() : receipt);
      }
      return new Unknown("HTTP " + response.statusCode() + " " + abbreviate(response.body()));
    } catch (ConnectException e) {
      return new NotSent("connection refused: " + e.getMessage());
    } catch (HttpTimeoutException e) {
      return new Unknown("no answer within " + timeout.toMillis() + " ms");
    } catch (IOException e) {
      return new Unknown("connection broken: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Unknown("interrupted while waiting for the answer");
    }
  }

  @Override
  public Lookup lookup(String effectKey) {
    if (!spec.receiptQueries()) {
      throw new IllegalStateException("the provider declares no receipt queries: " + spec.describe());
    }
    String base = spec.url().endsWith("/") ? spec.url() : spec.url() + "/";
    try {
      HttpResponse<String> response =
          client.send(HttpRequest.newBuilder(URI.create(base + effectKey)).timeout(timeout).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() == 200) {
        return new Found(response.body().trim());
      }
      if (response.statusCode() == 404) {
        return new NotFound();
      }
      return new Unanswered("HTTP " + response.statusCode());
    } catch (IOException e) {
      return new Unanswered(e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Unanswered("interrupted");
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "…";
  }
}

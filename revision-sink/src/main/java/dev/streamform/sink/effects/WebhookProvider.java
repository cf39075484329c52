package dev.streamform.sink.effects;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * An HTTP webhook (JDK {@code java.net.http}): an effect is {@code POST <url>} with the payload as
 * JSON and, when the provider declares idempotency keys, the effect key as {@code Idempotency-Key};
 * a 2xx answer is applied, its body (trimmed) the receipt. A receipt is {@code GET <url>/<key>}:
 * 200 with the receipt, 404 never applied. Only a refused connection proves that nothing was sent;
 * a timeout, a broken connection and any non-2xx answer (a 500 may come after the effect was
 * applied) are {@link Unknown}. A delivery and a receipt query each wait at most the timeout in all
 * (connection, headers and body), so a dispatcher's lease longer than the timeout covers it. A
 * declared credential is read (from the environment or its file) at each delivery and receipt query
 * and sent as the {@code Authorization} header, nowhere else; when it cannot be read, nothing is
 * sent.
 */
public final class WebhookProvider implements EffectProvider {
  private final ProviderSpec spec;
  private final HttpClient client;
  private final Duration timeout;
  private final UnaryOperator<String> environment;

  public WebhookProvider(ProviderSpec spec, Duration timeout) {
    this(spec, timeout, System::getenv);
  }

  /** With {@code environment} in place of {@link System#getenv(String)} (for tests). */
  public WebhookProvider(ProviderSpec spec, Duration timeout, UnaryOperator<String> environment) {
    if (!ProviderSpec.WEBHOOK.equals(spec.kind())) {
      throw new IllegalArgumentException("not a webhook provider: " + spec.describe());
    }
    this.spec = spec;
    this.timeout = timeout;
    this.environment = environment;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  @Override
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

  /**
   * The {@code Authorization} header's value, if one is declared; a message saying why it cannot be
   * read otherwise (never the value).
   */
  public Optional<String> authorizationProblem() {
    try {
      authorization();
      return Optional.empty();
    } catch (IllegalStateException e) {
      return Optional.of(e.getMessage());
    }
  }

  private Optional<String> authorization() {
    if (spec.authorizationEnv() != null) {
      String value = environment.apply(spec.authorizationEnv());
      if (value == null || value.isBlank()) {
        throw new IllegalStateException(
            "the environment variable "
                + spec.authorizationEnv()
                + " (the provider's authorization) is not set");
      }
      return Optional.of(value.strip());
    }
    if (spec.authorizationFile() != null) {
      String text;
      try {
        text = Files.readString(Path.of(spec.authorizationFile()), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new IllegalStateException(
            "cannot read the provider's authorization file "
                + spec.authorizationFile()
                + ": "
                + e.getClass().getSimpleName());
      }
      String line = text.lines().findFirst().orElse("").strip();
      if (line.isEmpty()) {
        throw new IllegalStateException(
            "the provider's authorization file " + spec.authorizationFile() + " is empty");
      }
      return Optional.of(line);
    }
    return Optional.empty();
  }

  /**
   * Why no request can be made to {@code url} at all — it is not a URI, or its port is 0 or past
   * 65535 — found before any I/O; empty when one can. The JDK's client found an impossible port
   * only inside its send, and the dispatcher took its {@code IllegalArgumentException} for a broken
   * connection: the effect was UNKNOWN ({@code connection broken:
   * java.lang.IllegalArgumentException: port out of range:99999}) although nothing was sent (ADR
   * 0185). {@code streamform check} refuses such a url; this covers a provider given otherwise.
   */
  static Optional<String> unsendable(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return Optional.of(
          "the provider's url "
              + url
              + " is not a URL ("
              + e.getReason()
              + "): nothing was sent; correct the url in the project (streamform check names it)");
    }
    int port = uri.getPort();
    if (port == 0 || port > 65535) {
      return Optional.of(
          "the provider's url "
              + url
              + " has port "
              + port
              + ", outside 1 to 65535: nothing was sent; correct the url in the project"
              + " (streamform check names it)");
    }
    return Optional.empty();
  }

  @Override
  public Delivery deliver(String effectKey, String payloadJson) {
    Optional<String> unsendable = unsendable(spec.url());
    if (unsendable.isPresent()) {
      return new NotSent(unsendable.get());
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(spec.url()))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(payloadJson, StandardCharsets.UTF_8));
    if (spec.idempotencyKeys()) {
      request.header("Idempotency-Key", effectKey);
    }
    try {
      authorization().ifPresent(a -> request.header("Authorization", a));
    } catch (IllegalStateException e) {
      return new NotSent(e.getMessage());
    }
    CompletableFuture<HttpResponse<String>> sent =
        client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    try {
      HttpResponse<String> response = sent.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (response.statusCode() / 100 == 2) {
        String receipt = response.body().trim();
        return new Applied(receipt.isEmpty() ? "HTTP " + response.statusCode() : receipt);
      }
      String body = response.body() == null ? "" : response.body().strip();
      return new Unknown(
          "HTTP " + response.statusCode() + (body.isEmpty() ? "" : " " + abbreviate(body)), true);
    } catch (TimeoutException e) {
      sent.cancel(true);
      return new Unknown("no answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ConnectException) {
        // the JDK's client gives no message here: name who refused
        return new NotSent(
            "connection refused by "
                + spec.url()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
      }
      if (cause instanceof HttpTimeoutException) {
        return new Unknown("no answer within " + timeout.toMillis() + " ms");
      }
      // as a receipt query says it: the JDK's message, not its exception's class
      return new Unknown(
          "connection broken: "
              + (cause.getMessage() == null
                  ? cause.getClass().getSimpleName()
                  : cause.getMessage()));
    } catch (InterruptedException e) {
      sent.cancel(true);
      Thread.currentThread().interrupt();
      return new Unknown("interrupted while waiting for the answer");
    }
  }

  @Override
  public Lookup lookup(String effectKey) {
    if (!spec.receiptQueries()) {
      throw new IllegalStateException(
          "the provider declares no receipt queries: " + spec.describe());
    }
    Optional<String> unsendable = unsendable(spec.url());
    if (unsendable.isPresent()) {
      return new Unanswered(unsendable.get());
    }
    String base = spec.url().endsWith("/") ? spec.url() : spec.url() + "/";
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + effectKey)).timeout(timeout).GET();
    try {
      authorization().ifPresent(a -> request.header("Authorization", a));
    } catch (IllegalStateException e) {
      return new Unanswered(e.getMessage());
    }
    // bounded as a delivery is: the request's own timeout ends once the headers arrive, and a
    // body that stalls after them held the query, and the whole dispatcher, for ever
    CompletableFuture<HttpResponse<String>> asked =
        client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    try {
      HttpResponse<String> response = asked.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (response.statusCode() == 200) {
        return new Found(response.body().trim());
      }
      if (response.statusCode() == 404) {
        return new NotFound();
      }
      return new Unanswered("HTTP " + response.statusCode());
    } catch (TimeoutException e) {
      asked.cancel(true);
      return new Unanswered("no answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ConnectException) {
        // as a delivery says it: the JDK's client gives no message here
        return new Unanswered(
            "connection refused by "
                + spec.url()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
      }
      if (cause instanceof HttpTimeoutException) {
        return new Unanswered("no answer within " + timeout.toMillis() + " ms");
      }
      return new Unanswered(
          "connection broken: "
              + (cause.getMessage() == null ? cause.toString() : cause.getMessage()));
    } catch (InterruptedException e) {
      asked.cancel(true);
      Thread.currentThread().interrupt();
      return new Unanswered("interrupted");
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "…";
  }
}

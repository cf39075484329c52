package dev.streamform.sink.effects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider for tests and the demo (JDK {@code com.sun.net.httpserver}, on 127.0.0.1): {@code POST
 * /effects} applies an effect — counted per effect key (the payload's {@code effect_key}) — and
 * answers its receipt; with an {@code Idempotency-Key} it already saw, it applies nothing and
 * answers the first receipt again (Stripe's rule) — unless told not to deduplicate ({@link
 * #dedupe}), when every delivery is applied, so a second delivery of a key is visible as a second
 * application. Requests are counted per effect key as well as applications, and so are deliveries:
 * requests that reached the effect (applied, or answered with the key's earlier receipt), not those
 * refused with nothing applied (a 500, a 401). {@code GET /effects/<key>} answers the receipt (200)
 * or 404; {@code GET /effects} answers the counts as JSON ({@code {"applied": {key: n},
 * "deliveries_per_key": {key: n}, "requests_per_key": {key: n}, "requests": n}}). With {@link
 * #requireAuthorization} it answers 401 to a request without that {@code Authorization} header and
 * remembers the headers it received. It can be told to misbehave ({@link Mode}, or to lose the
 * answers of the next deliveries, {@link #loseAnswers}) and to go away ({@link #close}). {@code
 * streamform provider} runs it on its own.
 */
public final class LocalProviderServer implements AutoCloseable {
  /** How the next deliveries are answered. */
  public enum Mode {
    /** apply, answer 200 with the receipt */
    OK,
    /** apply, then close the connection without an answer (the response is lost) */
    ACCEPT_THEN_DROP,
    /** apply nothing, answer 500 */
    FAIL_500,
    /**
     * hang for the hang time without answering, then apply (a slow provider the caller gave up on)
     */
    TIMEOUT
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "local-provider");
            t.setDaemon(true);
            return t;
          });
  private final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
  private final Map<String, String> receipts = new ConcurrentHashMap<>();
  private final Map<String, String> byIdempotencyKey = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> requestsPerKey = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> deliveriesPerKey = new ConcurrentHashMap<>();
  private final java.util.List<String> authorizations =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile boolean dedupe = true;
  private volatile String requiredAuthorization;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger sequence = new AtomicInteger();
  private volatile Mode mode = Mode.OK;
  private volatile Duration hang = Duration.ofSeconds(2);
  private final AtomicInteger answersToLose = new AtomicInteger();
  private volatile java.util.function.BiConsumer<String, String> onApplied = (key, receipt) -> {};

  private LocalProviderServer(int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    server.setExecutor(executor);
    server.createContext("/effects", this::handle);
    // any other path: a declared url that does not end in /effects, said with the fix (nothing
    // applied, nothing counted)
    server.createContext(
        "/",
        x -> {
          try (x) {
            x.getRequestBody().readAllBytes();
            answer(
                x,
                404,
                "no such path "
                    + x.getRequestURI().getPath()
                    + ": the local provider applies POST /effects and answers GET /effects/<key>;"
                    + " declare url: "
                    + url());
          }
        });
    server.start();
  }

  /** A server on {@code port} (0: any free port). */
  public static LocalProviderServer start(int port) throws IOException {
    return new LocalProviderServer(port);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The URL to declare: {@code http://127.0.0.1:<port>/effects}. */
  public String url() {
    return "http://127.0.0.1:" + port() + "/effects";
  }

  public void mode(Mode mode) {
    this.mode = mode;
  }

  /**
   * Whether a repeated {@code Idempotency-Key} is applied once (true, the default: Stripe's rule)
   * or again (false: a provider that does not deduplicate, so a second delivery is a second effect
   * — what tests need to see one).
   */
  public void dedupe(boolean dedupe) {
    this.dedupe = dedupe;
  }

  /**
   * Requests (deliveries and receipt queries) must carry this {@code Authorization} header; else
   * 401.
   */
  public void requireAuthorization(String value) {
    this.requiredAuthorization = value;
  }

  /** The {@code Authorization} headers received, in order (absent ones as the empty string). */
  public java.util.List<String> authorizations() {
    return java.util.List.copyOf(authorizations);
  }

  public void hang(Duration hang) {
    this.hang = hang;
  }

  /**
   * The next {@code n} deliveries are applied but their answers are lost (the connection is cut),
   * whatever the mode; then the mode applies again.
   */
  public void loseAnswers(int n) {
    answersToLose.set(n);
  }

  /**
   * Called with the effect key and its receipt each time an effect is applied (not on a replay).
   */
  public void onApplied(java.util.function.BiConsumer<String, String> listener) {
    this.onApplied = listener;
  }

  /** How many times the effect {@code effectKey} was applied here. */
  public int applied(String effectKey) {
    AtomicInteger n = applied.get(effectKey);
    return n == null ? 0 : n.get();
  }

  /** Effects applied, per key. */
  public Map<String, Integer> appliedPerKey() {
    Map<String, Integer> out = new TreeMap<>();
    applied.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** POST requests received for {@code effectKey}, applied or not. */
  public int requests(String effectKey) {
    AtomicInteger n = requestsPerKey.get(effectKey);
    return n == null ? 0 : n.get();
  }

  /** POST requests received, per effect key. */
  public Map<String, Integer> requestsPerKey() {
    Map<String, Integer> out = new TreeMap<>();
    requestsPerKey.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /**
   * Deliveries per effect key: POST requests that reached the effect — applied, or answered with
   * the key's earlier receipt because this provider deduplicates — and not those it refused with
   * nothing applied. A second delivery of a key counts here whether or not it was applied again.
   */
  public Map<String, Integer> deliveriesPerKey() {
    Map<String, Integer> out = new TreeMap<>();
    deliveriesPerKey.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** POST requests received whole (their body arrived), applied or not. */
  public int requests() {
    return requests.get();
  }

  private void handle(HttpExchange x) throws IOException {
    try {
      String path = x.getRequestURI().getPath();
      boolean counts =
          "GET".equals(x.getRequestMethod())
              && (path.equals("/effects") || path.equals("/effects/"));
      if (!counts) {
        String authorization = x.getRequestHeaders().getFirst("Authorization");
        authorizations.add(authorization == null ? "" : authorization);
        String required = requiredAuthorization;
        if (required != null && !required.equals(authorization)) {
          answer(x, 401, "missing or wrong Authorization");
          return;
        }
      }
      if ("GET".equals(x.getRequestMethod())) {
        if (counts) {
          answer(
              x,
              200,
              JSON.writeValueAsString(
                  Map.of(
                      "applied",
                      appliedPerKey(),
                      "deliveries_per_key",
                      deliveriesPerKey(),
                      "requests_per_key",
                      requestsPerKey(),
                      "requests",
                      requests())));
          return;
        }
        String key = path.substring(path.lastIndexOf('/') + 1);
        String receipt = receipts.get(key);
        answer(x, receipt == null ? 404 : 200, receipt == null ? "never applied" : receipt);
        return;
      }
      // counted once the whole body is here: a caller cut off before its body arrived sent nothing
      // that could be applied (tests take requests() == 1 as "the provider has the request")
      byte[] body = x.getRequestBody().readAllBytes();
      JsonNode payload = JSON.readTree(body);
      String effectKey = payload.path("effect_key").asText();
      requests.incrementAndGet();
      requestsPerKey.computeIfAbsent(effectKey, k -> new AtomicInteger()).incrementAndGet();
      String idempotencyKey = x.getRequestHeaders().getFirst("Idempotency-Key");
      Mode now = mode;
      if (now == Mode.FAIL_500) {
        answer(x, 500, "provider failure");
        return;
      }
      if (now == Mode.TIMEOUT) {
        sleep(hang);
      }
      boolean lose = answersToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
      String receipt;
      boolean fresh = false;
      synchronized (this) {
        deliveriesPerKey.computeIfAbsent(effectKey, k -> new AtomicInteger()).incrementAndGet();
        String seen =
            idempotencyKey == null || !dedupe ? null : byIdempotencyKey.get(idempotencyKey);
        if (seen != null) {
          receipt = seen;
        } else {
          receipt = "rcpt-" + sequence.incrementAndGet();
          applied.computeIfAbsent(effectKey, k -> new AtomicInteger()).incrementAndGet();
          receipts.putIfAbsent(effectKey, receipt);
          fresh = true;
          if (idempotencyKey != null) {
            byIdempotencyKey.put(idempotencyKey, receipt);
          }
        }
      }
      if (fresh) {
        onApplied.accept(effectKey, receipt);
      }
      if (now == Mode.ACCEPT_THEN_DROP || lose) {
        // the effect is applied; the answer never leaves: the connection is cut
        x.getResponseBody().close();
        x.close();
        return;
      }
      answer(x, 200, receipt);
    } finally {
      x.close();
    }
  }

  private static void answer(HttpExchange x, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Goes away: the port refuses connections from now on. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

package dev.streamform.sink.effects;

import java.io.Serializable;
import java.util.Objects;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A declared provider: its kind ({@code webhook}), where it is, the two capabilities that decide
 * what the dispatcher may do after a dispatch whose outcome it did not learn (docs/semantics.md
 * §10), and where its credential comes from. The credential itself is never held here: only the
 * name of the environment variable or the path of the file it is read from at delivery time, so it
 * never reaches the effect ledger, display data or {@code effects show}.
 *
 * @param kind {@code webhook}
 * @param url the webhook's endpoint: effects are POSTed to it, receipts are read from {@code
 *     <url>/<effect_key>}
 * @param idempotencyKeys the provider dedupes by the {@code Idempotency-Key} header (the effect
 *     key)
 * @param receiptQueries the provider answers {@code GET <url>/<effect_key>} with the effect's
 *     receipt (200) or that it never applied it (404)
 * @param authorizationEnv the environment variable whose value is sent as the {@code Authorization}
 *     header, or null
 * @param authorizationFile the absolute path of the file whose first line is sent as the {@code
 *     Authorization} header, or null
 */
public record ProviderSpec(
    String kind,
    String url,
    boolean idempotencyKeys,
    boolean receiptQueries,
    @Nullable String authorizationEnv,
    @Nullable String authorizationFile)
    implements Serializable {
  public static final String WEBHOOK = "webhook";

  public ProviderSpec {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(url, "url");
    if (authorizationEnv != null && authorizationFile != null) {
      throw new IllegalArgumentException(
          "a provider's authorization comes from the environment or a file, not both");
    }
  }

  public ProviderSpec(String kind, String url, boolean idempotencyKeys, boolean receiptQueries) {
    this(kind, url, idempotencyKeys, receiptQueries, null, null);
  }

  public static ProviderSpec webhook(String url, boolean idempotencyKeys, boolean receiptQueries) {
    return new ProviderSpec(WEBHOOK, url, idempotencyKeys, receiptQueries);
  }

  /**
   * The same provider, its {@code Authorization} header read from environment variable {@code
   * name}.
   */
  public ProviderSpec withAuthorizationFromEnv(String name) {
    return new ProviderSpec(
        kind, url, idempotencyKeys, receiptQueries, Objects.requireNonNull(name), null);
  }

  /** The same provider, its {@code Authorization} header the first line of {@code absolutePath}. */
  public ProviderSpec withAuthorizationFromFile(String absolutePath) {
    return new ProviderSpec(
        kind, url, idempotencyKeys, receiptQueries, null, Objects.requireNonNull(absolutePath));
  }

  /**
   * How the ledger names it: {@code webhook <url> [idempotency: key|none, receipts: true|false]}.
   */
  public String describe() {
    return kind
        + " "
        + url
        + " [idempotency: "
        + (idempotencyKeys ? "key" : "none")
        + ", receipts: "
        + receiptQueries
        + "]";
  }

  /** Where the credential comes from (never the credential): for the dispatcher's banner. */
  public String describeAuthorization() {
    if (authorizationEnv != null) {
      return "Authorization from environment variable " + authorizationEnv;
    }
    return authorizationFile != null
        ? "Authorization from file " + authorizationFile
        : "no Authorization";
  }
}

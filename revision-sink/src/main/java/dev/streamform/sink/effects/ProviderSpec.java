package dev.streamform.sink.effects;

import java.io.Serializable;
import java.util.Objects;

/**
 * A declared provider: its kind ({@code webhook}), where it is, and the two capabilities that
 * decide what the dispatcher may do after a dispatch whose outcome it did not learn (docs/semantics.md §10).
 *
 * @param kind {@code webhook}
 * @param url the webhook's endpoint: effects are POSTed to it, receipts are read from {@code
 *     <url>/<effect_key>}
 * @param idempotencyKeys the provider dedupes by the {@code Idempotency-Key} header (the effect key)
 * @param receiptQueries the provider answers {@code GET <url>/<effect_key>} with the effect's
 *     receipt (200) or that it never applied it (404)
 */
public record ProviderSpec(String kind, String url, boolean idempotencyKeys, boolean receiptQueries)
    implements Serializable {
  public static final String WEBHOOK = "webhook";

  public ProviderSpec {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(url, "url");
  }

  public static ProviderSpec webhook(String url, boolean idempotencyKeys, boolean receiptQueries) {
    return new ProviderSpec(WEBHOOK, url, idempotencyKeys, receiptQueries);
  }

  /** How the ledger names it: {@code webhook <url> [idempotency: key|none, receipts: true|false]}. */
  public String describe() {
    return kind + " " + url + " [idempotency: " + (idempotencyKeys ? "key" : "none") + ", receipts: "
        + receiptQueries + "]";
  }
}

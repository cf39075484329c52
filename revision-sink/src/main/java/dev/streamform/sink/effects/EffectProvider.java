package dev.streamform.sink.effects;

import java.time.Duration;

/**
 * Where effects are delivered. The two capabilities decide what the dispatcher may do after a
 * delivery whose outcome it did not learn: with {@link #receiptQueries} it asks; with {@link
 * #idempotencyKeys} and a query that says "never applied" it may deliver again under the same key;
 * with neither, never again (docs/semantics.md §10).
 */
public interface EffectProvider {
  /** The provider dedupes deliveries by the effect key it receives as its idempotency key. */
  boolean idempotencyKeys();

  /** The provider can say whether it applied an effect key, and give its receipt. */
  boolean receiptQueries();

  /** Delivers an effect once: the payload (canonical JSON) under its effect key. */
  Delivery deliver(String effectKey, String payloadJson);

  /** Asks whether the provider applied {@code effectKey}: only when {@link #receiptQueries}. */
  Lookup lookup(String effectKey);

  /** The longest a {@link #deliver} waits for an answer: a dispatcher's lease must exceed it. */
  default Duration timeout() {
    return Duration.ZERO;
  }

  /** What a delivery learned. */
  sealed interface Delivery {}

  /** The provider applied the effect (or had applied it before, under the same key). */
  record Applied(String receipt) implements Delivery {}

  /** Nothing reached the provider (connection refused): the effect may be delivered later. */
  record NotSent(String reason) implements Delivery {}

  /**
   * The request may have reached the provider; whether it applied the effect is not known.
   *
   * @param answered whether the provider answered (an error status): its handling of the request is
   *     over, so a receipt query now tells what it did. Without an answer (a timeout, a broken
   *     connection) the request may still be applied later, and a receipt query that finds nothing
   *     proves nothing until the attempt's lease is over.
   */
  record Unknown(String reason, boolean answered) implements Delivery {
    /** An outcome without an answer. */
    public Unknown(String reason) {
      this(reason, false);
    }
  }

  /** What a receipt query learned. */
  sealed interface Lookup {}

  record Found(String receipt) implements Lookup {}

  record NotFound() implements Lookup {}

  /** The query itself failed: nothing is learned. */
  record Unanswered(String reason) implements Lookup {}
}

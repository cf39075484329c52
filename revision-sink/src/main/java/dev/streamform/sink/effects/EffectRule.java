package dev.streamform.sink.effects;

import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.SqlModelException;
import java.io.Serializable;
import java.util.Objects;

/**
 * A declared effect rule of a windowed model (docs/semantics.md §10): when a canonical revision of
 * a window makes {@code condition} true, the effect {@code type} for the window's {@code subject}
 * (the value of that output column) is to happen once, through {@code provider}.
 *
 * <pre>{@code
 * effects:
 *   - type: reward
 *     subject: merchant_id
 *     when: "revenue >= 1000"
 *     provider: {kind: webhook, url: "http://127.0.0.1:8787/effects", idempotency: key, receipts: true}
 * }</pre>
 *
 * @param model the windowed model whose revisions the rule reads
 * @param type the effect's type, part of its key
 * @param subject the key or window column whose value is the effect's subject (never an aggregate:
 *     the key must not move with a correction; {@code streamform check} refuses one)
 * @param when the condition's text, in the model's SQL expression language
 * @param condition {@code when}, parsed
 * @param provider where and how the effect is delivered
 * @param incremental {@code mode: incremental}: a correction after DONE becomes a delta effect (for
 *     providers that take adjustments) instead of a compensation for a person
 */
public record EffectRule(
    String model,
    String type,
    String subject,
    String when,
    ModelSql.Condition condition,
    ProviderSpec provider,
    boolean incremental)
    implements Serializable {

  public EffectRule {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(condition, "condition");
    Objects.requireNonNull(provider, "provider");
  }

  /**
   * A rule whose condition is parsed from {@code when}.
   *
   * @throws SqlModelException when {@code when} is not a condition of the expression language
   */
  public static EffectRule of(
      String model, String type, String subject, String when, ProviderSpec provider)
      throws SqlModelException {
    return new EffectRule(model, type, subject, when, ModelSql.condition(when), provider, false);
  }

  /** This rule with {@code mode: incremental}: corrections after DONE become delta effects. */
  public EffectRule incrementally() {
    return new EffectRule(model, type, subject, when, condition, provider, true);
  }
}

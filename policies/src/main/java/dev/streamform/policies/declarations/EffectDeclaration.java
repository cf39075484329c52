package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One declared effect of a windowed model (docs/semantics.md §10), an item of its {@code effects:}
 * list in {@code streamform.yml}:
 *
 * <pre>{@code
 * effects:
 *   - type: reward
 *     subject: merchant_id
 *     when: "revenue >= 1000"
 *     provider: {kind: webhook, url: "http://127.0.0.1:8099/rewards", idempotency: key, receipts: true,
 *                authorization_env: REWARDS_AUTHORIZATION}
 * }</pre>
 *
 * When a canonical revision of a window makes {@link #when()} true, the effect {@link #type()} for
 * the window's {@link #subject()} value happens once, through the provider. Checked by {@code
 * streamform check}: the subject is a key or window column of the model, the condition names only
 * output columns. Immutable.
 */
@AutoValue
public abstract class EffectDeclaration {
  /** The only provider kind so far. */
  public static final String WEBHOOK = "webhook";

  /** The effect's type, part of its key, e.g. {@code reward}. */
  public abstract String type();

  /** The key or window column whose value is the effect's subject, e.g. {@code merchant_id}. */
  public abstract String subject();

  /** The condition over output columns, in the model's SQL expression language. */
  public abstract String when();

  /** The provider's kind: {@value #WEBHOOK}. */
  public abstract String providerKind();

  /** The provider's http(s) endpoint. */
  public abstract String providerUrl();

  /**
   * {@code idempotency: key}: the provider dedupes by the effect key; {@code none}: it does not.
   */
  public abstract boolean idempotencyKeys();

  /** {@code receipts: true}: the provider answers receipt queries by effect key. */
  public abstract boolean receiptQueries();

  /**
   * {@code authorization_env: NAME}: the environment variable whose value the dispatcher sends as
   * the {@code Authorization} header. Only the name is declared; the value is read at delivery.
   */
  public abstract Optional<String> authorizationEnv();

  /**
   * {@code authorization_file: path}: the file (inside the project folder, relative to it) whose
   * first line the dispatcher sends as the {@code Authorization} header, read at delivery.
   */
  public abstract Optional<String> authorizationFile();

  /**
   * {@code mode: incremental}: for a provider that takes adjustments, a correction after the effect
   * was dispatched becomes a delta effect; {@code mode: once} (the default): a compensation record
   * for a person.
   */
  public abstract boolean incremental();

  /**
   * The rule's fields, what {@code plan --explain}, the plan manifest and the declaration digest
   * render, in the order a declaration gives them: {@code type}, {@code subject}, {@code when}
   * (trimmed), {@code mode} ({@code once} or {@code incremental}, the default written out) and
   * {@code provider}, the {@link #providerFields}. Values are strings but {@code receipts}, a
   * boolean.
   */
  public Map<String, Object> fields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("type", type());
    fields.put("subject", subject());
    fields.put("when", when().trim());
    fields.put("mode", incremental() ? "incremental" : "once");
    fields.put("provider", providerFields());
    return Collections.unmodifiableMap(fields);
  }

  /**
   * The provider's fields, in order: {@code kind}, {@code url}, {@code idempotency} ({@code key} or
   * {@code none}), {@code receipts} (a boolean), and {@code authorization_env} / {@code
   * authorization_file} when declared: where the credential is read from, never a value.
   */
  public Map<String, Object> providerFields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("kind", providerKind());
    fields.put("url", providerUrl());
    fields.put("idempotency", idempotencyKeys() ? "key" : "none");
    fields.put("receipts", receiptQueries());
    authorizationEnv().ifPresent(v -> fields.put("authorization_env", v));
    authorizationFile().ifPresent(v -> fields.put("authorization_file", v));
    return Collections.unmodifiableMap(fields);
  }

  /** This effect with {@code mode: incremental}. */
  public EffectDeclaration incrementally() {
    return new AutoValue_EffectDeclaration(
        type(),
        subject(),
        when(),
        providerKind(),
        providerUrl(),
        idempotencyKeys(),
        receiptQueries(),
        authorizationEnv(),
        authorizationFile(),
        true);
  }

  public static EffectDeclaration webhook(
      String type,
      String subject,
      String when,
      String url,
      boolean idempotencyKeys,
      boolean receiptQueries) {
    return webhook(
        type,
        subject,
        when,
        url,
        idempotencyKeys,
        receiptQueries,
        Optional.empty(),
        Optional.empty());
  }

  public static EffectDeclaration webhook(
      String type,
      String subject,
      String when,
      String url,
      boolean idempotencyKeys,
      boolean receiptQueries,
      Optional<String> authorizationEnv,
      Optional<String> authorizationFile) {
    return new AutoValue_EffectDeclaration(
        type,
        subject,
        when,
        WEBHOOK,
        url,
        idempotencyKeys,
        receiptQueries,
        authorizationEnv,
        authorizationFile,
        false);
  }
}

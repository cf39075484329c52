package dev.streamform.sink.effects;

import dev.streamform.core.digest.RevisionIdentity;
import java.util.List;
import java.util.Map;

/**
 * The identity of an effect and of its payload, by {@link RevisionIdentity}'s canonical JSON and
 * SHA-256 (docs/semantics.md §10):
 *
 * <pre>
 * effect_key     = H(["effect", effect_type, logical_window_id, subject])
 * payload_digest = H(["payload", payload])
 * </pre>
 *
 * No revision and no generation in the key: corrections, policy generations and replays of a window
 * name the same effect. The subject is the column's value as the canonical JSON has it (a string
 * stays a string, an int64 a number). Test vector ({@code EffectIdentityTest}): type {@code
 * reward}, logical window id {@code 64 × "a"}, subject {@code "m-1"} hash the text {@code
 * ["effect","reward","aaa…a","m-1"]}, whose SHA-256 is {@code
 * 80186c51e464909ac6bbd61539f2c0b0fb61780c700610196024fc06abf181a8}.
 */
public final class EffectIdentity {
  private EffectIdentity() {}

  public static String effectKey(String effectType, String logicalWindowId, Object subject) {
    return RevisionIdentity.hash(List.of("effect", effectType, logicalWindowId, subject));
  }

  /**
   * The payload a provider receives: the effect's key, type, subject, model, window and the
   * window's key and output values at the revision that confirmed it (no revision, no generation: a
   * replay under another generation gives the same payload).
   */
  public static Map<String, Object> payload(
      String effectKey,
      String effectType,
      Object subject,
      String model,
      Object windowStart,
      Object windowEnd,
      Map<String, Object> key,
      Map<String, Object> values) {
    return Map.of(
        "effect_key", effectKey,
        "effect_type", effectType,
        "subject", subject,
        "model", model,
        "window_start", windowStart,
        "window_end", windowEnd,
        "key", key,
        "values", values);
  }

  /**
   * The key of a delta effect ({@code mode: incremental}): {@code H(["delta", effect_key,
   * revision])}, the base effect's key and the revision whose correction it carries.
   */
  public static String deltaKey(String effectKey, int revision) {
    return RevisionIdentity.hash(List.of("delta", effectKey, (long) revision));
  }

  /**
   * The key of a delta when {@link #deltaKey(String, int)} is held by a delta of another generation
   * or from another predecessor (the alias moved between generations, or back): {@code H(["delta",
   * effect_key, revision, generation, predecessor])}.
   */
  public static String deltaKey(
      String effectKey, int revision, int generation, String predecessor) {
    return RevisionIdentity.hash(
        List.of("delta", effectKey, (long) revision, (long) generation, predecessor));
  }

  public static String payloadDigest(Map<String, Object> payload) {
    return RevisionIdentity.hash(List.of("payload", payload));
  }
}

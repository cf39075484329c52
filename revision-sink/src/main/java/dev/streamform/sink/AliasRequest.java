package dev.streamform.sink;

import dev.streamform.sink.effects.EffectRule;
import java.util.List;
import java.util.Optional;
import org.apache.beam.sdk.schemas.Schema;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What a move of the canonical alias asks for ({@link Ledger#setCanonicalGeneration(AliasRequest)},
 * {@code streamform alias set}): the model and generation, and what happens in the same transaction
 * — the model's effects paused, its effect rules evaluated again on the values that have just
 * become canonical (docs/semantics.md §10.11). An immutable value: each {@code withX} returns a
 * changed copy.
 */
public final class AliasRequest {
  private final String model;
  private final int generation;
  private final boolean allowEmpty;
  private final @Nullable String pausedBy;
  private final @Nullable String pauseReason;
  private final List<EffectRule> rules;
  private final @Nullable Schema outputSchema;
  private final @Nullable Integer shareBasisPoints;

  private AliasRequest(
      String model,
      int generation,
      boolean allowEmpty,
      @Nullable String pausedBy,
      @Nullable String pauseReason,
      List<EffectRule> rules,
      @Nullable Schema outputSchema,
      @Nullable Integer shareBasisPoints) {
    this.model = model;
    this.generation = generation;
    this.allowEmpty = allowEmpty;
    this.pausedBy = pausedBy;
    this.pauseReason = pauseReason;
    this.rules = List.copyOf(rules);
    this.outputSchema = outputSchema;
    this.shareBasisPoints = shareBasisPoints;
  }

  /** Makes {@code generation} the canonical generation of {@code model} for every key. */
  public static AliasRequest of(String model, int generation) {
    if (generation < 1) {
      throw new IllegalArgumentException(
          "a generation is a whole number from 1, got " + generation);
    }
    return new AliasRequest(model, generation, false, null, null, List.of(), null, null);
  }

  /** Also to a generation that has no projection yet (the canonical view then shows nothing). */
  public AliasRequest withAllowEmpty(boolean allowEmpty) {
    return new AliasRequest(
        model,
        generation,
        allowEmpty,
        pausedBy,
        pauseReason,
        rules,
        outputSchema,
        shareBasisPoints);
  }

  /** Pauses the model's effects in the transaction that moves the alias. */
  public AliasRequest withPauseEffects(String by, @Nullable String reason) {
    return new AliasRequest(
        model, generation, allowEmpty, by, reason, rules, outputSchema, shareBasisPoints);
  }

  /**
   * Evaluates {@code rules} (the model's declared effects) on the values that become canonical, in
   * the transaction that moves the alias; stored values are typed by {@code outputSchema} (the
   * model's key and value columns).
   */
  public AliasRequest withEffects(List<EffectRule> rules, Schema outputSchema) {
    for (EffectRule r : rules) {
      if (!r.model().equals(model)) {
        throw new IllegalArgumentException(
            "effect rule " + r.type() + " is of model " + r.model() + ", not " + model);
      }
    }
    return new AliasRequest(
        model,
        generation,
        allowEmpty,
        pausedBy,
        pauseReason,
        rules,
        outputSchema,
        shareBasisPoints);
  }

  /**
   * Makes {@code generation} a canary for a share of the keys ({@link CanaryShare}): those keys
   * read it, the others keep the generation that is canonical now. Without a share (the default)
   * every key reads {@code generation} and any canary ends.
   */
  public AliasRequest withShare(int basisPoints) {
    new CanaryShare(generation, basisPoints); // validates
    return new AliasRequest(
        model, generation, allowEmpty, pausedBy, pauseReason, rules, outputSchema, basisPoints);
  }

  /** The canary share, in basis points, when the request asks for one. */
  public java.util.OptionalInt shareBasisPoints() {
    return shareBasisPoints == null
        ? java.util.OptionalInt.empty()
        : java.util.OptionalInt.of(shareBasisPoints);
  }

  public String model() {
    return model;
  }

  public int generation() {
    return generation;
  }

  public boolean allowEmpty() {
    return allowEmpty;
  }

  /** Who pauses the effects, when the request pauses them. */
  public Optional<String> pausedBy() {
    return Optional.ofNullable(pausedBy);
  }

  public @Nullable String pauseReason() {
    return pauseReason;
  }

  public List<EffectRule> rules() {
    return rules;
  }

  public @Nullable Schema outputSchema() {
    return outputSchema;
  }
}

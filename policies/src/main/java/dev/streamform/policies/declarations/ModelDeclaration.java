package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One model of {@code streamform.yml} with its query from {@code models/<name>.sql}, validated
 * against the project: the query reads a declared source, the key columns are columns the query
 * produces, and {@link #retention()} or {@link #window()} is present only when that source has
 * event time.
 *
 * <p>A model with a {@link #window()} is windowed (docs/semantics.md §6): it has no retention (a
 * window's state lives until the window is final), and only a windowed model may have a non-zero
 * {@link #allowedLateness()} or {@link #earlyResults()} other than none. Immutable.
 */
@AutoValue
public abstract class ModelDeclaration {

  public abstract String name();

  public abstract Materialization materialized();

  /** The key columns, in declaration order; never empty. */
  public abstract List<String> key();

  /** How long after a key's latest event time (in watermark terms) its state is dropped. */
  public abstract Optional<Duration> retention();

  /** The windows of a windowed model; empty for an upsert model. */
  public abstract Optional<WindowSpec> window();

  /** How long after a window's end corrections are still accepted; {@code 0s} when not declared. */
  public abstract Duration allowedLateness();

  /**
   * When a windowed model previews a window before it is on time; {@code none} when not declared.
   */
  public abstract EarlyResults earlyResults();

  /** The policy generation (docs/semantics.md §9), 1 or more; 1 when not declared. */
  public abstract int generation();

  /**
   * The decisions of a scoring model (docs/semantics.md §11): its query's aggregates are the
   * features, over a trailing range; every event of the source gets a decision. Empty for other
   * models.
   */
  public abstract Optional<DecisionsSpec> decisions();

  /** True when the model has {@link #decisions()}. */
  public boolean decides() {
    return decisions().isPresent();
  }

  /** True when the model has a {@link #window()}. */
  public boolean windowed() {
    return window().isPresent();
  }

  /** Kafka topic for the model's changelog. */
  public abstract Optional<String> topic();

  /** Kafka topic for events dropped as late. */
  public abstract Optional<String> lateTopic();

  /** Kafka topic for events that could not be processed (no or bad event time). */
  public abstract Optional<String> quarantineTopic();

  /**
   * The declared effects (docs/semantics.md §10), in file order; empty when none. Only a windowed
   * model has effects.
   */
  public abstract List<EffectDeclaration> effects();

  /** The source the query reads, from its {@code FROM source('<name>')}. */
  public abstract String source();

  /** The query file, {@code models/<name>.sql} in the project folder. */
  public abstract Path sqlFile();

  /** The query text, as written. */
  public abstract String sql();

  public abstract Builder toBuilder();

  /**
   * A builder with the defaults {@code materialized: upsert}, {@code allowed_lateness: 0s}, {@code
   * early_results: none} and {@code generation: 1}.
   */
  public static Builder builder() {
    return new AutoValue_ModelDeclaration.Builder()
        .setMaterialized(Materialization.UPSERT)
        .setAllowedLateness(Duration.ZERO)
        .setEarlyResults(EarlyResults.none())
        .setGeneration(1)
        .setEffects(List.of());
  }

  /** Builds a {@link ModelDeclaration}. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setName(String name);

    public abstract Builder setMaterialized(Materialization materialized);

    public abstract Builder setKey(List<String> key);

    public abstract Builder setRetention(Duration retention);

    public abstract Builder setWindow(WindowSpec window);

    public abstract Builder setDecisions(DecisionsSpec decisions);

    public abstract Optional<DecisionsSpec> decisions();

    public abstract Builder setAllowedLateness(Duration allowedLateness);

    public abstract Builder setEarlyResults(EarlyResults earlyResults);

    public abstract Builder setGeneration(int generation);

    public abstract Builder setTopic(String topic);

    public abstract Builder setLateTopic(String topic);

    public abstract Builder setQuarantineTopic(String topic);

    public abstract Builder setEffects(List<EffectDeclaration> effects);

    public abstract Builder setSource(String source);

    public abstract Builder setSqlFile(Path sqlFile);

    public abstract Builder setSql(String sql);

    abstract List<String> key();

    abstract List<EffectDeclaration> effects();

    abstract ModelDeclaration autoBuild();

    /**
     * @throws IllegalStateException when the key is empty, the generation is below 1, the allowed
     *     lateness is negative, or a model has retention with a window, or allowed lateness, early
     *     results or effects without one
     */
    public ModelDeclaration build() {
      setKey(List.copyOf(key()));
      setEffects(List.copyOf(effects()));
      ModelDeclaration m = autoBuild();
      check(!m.key().isEmpty(), m, "has an empty key");
      check(m.generation() >= 1, m, "has generation " + m.generation() + "; it must be 1 or more");
      check(!m.allowedLateness().isNegative(), m, "has a negative allowed lateness");
      if (m.decides()) {
        check(
            !m.windowed() && m.retention().isEmpty(), m, "has decisions and a window or retention");
      }
      if (m.windowed()) {
        check(m.retention().isEmpty(), m, "has both a window and a retention");
      } else {
        check(
            m.allowedLateness().isZero() && m.earlyResults().isNone(),
            m,
            "has allowed lateness or early results but no window");
        check(m.effects().isEmpty(), m, "has effects but no window");
      }
      return m;
    }

    private static void check(boolean ok, ModelDeclaration m, String what) {
      if (!ok) {
        throw new IllegalStateException("model '" + m.name() + "' " + what);
      }
    }
  }
}

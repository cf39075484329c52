package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One model of {@code streamform.yml} with its query from {@code models/<name>.sql}, validated
 * against the project: the query reads a declared source, the key columns are columns the query
 * produces, and {@link #retention()} is present only when that source has event time. Immutable.
 */
@AutoValue
public abstract class ModelDeclaration {

  public abstract String name();

  public abstract Materialization materialized();

  /** The key columns, in declaration order; never empty. */
  public abstract List<String> key();

  /** How long after a key's latest event time (in watermark terms) its state is dropped. */
  public abstract Optional<Duration> retention();

  /** The window size of a windowed model (next phase). */
  public abstract Optional<Duration> window();

  /** How long after a window's end corrections are still accepted (next phase). */
  public abstract Optional<Duration> allowedLateness();

  /** Kafka topic for the model's changelog. */
  public abstract Optional<String> topic();

  /** Kafka topic for events dropped as late. */
  public abstract Optional<String> lateTopic();

  /** Kafka topic for events that could not be processed (no or bad event time). */
  public abstract Optional<String> quarantineTopic();

  /** The source the query reads, from its {@code FROM source('<name>')}. */
  public abstract String source();

  /** The query file, {@code models/<name>.sql} in the project folder. */
  public abstract Path sqlFile();

  /** The query text, as written. */
  public abstract String sql();

  public abstract Builder toBuilder();

  /** A builder with the default {@code materialized: upsert}. */
  public static Builder builder() {
    return new AutoValue_ModelDeclaration.Builder().setMaterialized(Materialization.UPSERT);
  }

  /** Builds a {@link ModelDeclaration}. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setName(String name);

    public abstract Builder setMaterialized(Materialization materialized);

    public abstract Builder setKey(List<String> key);

    public abstract Builder setRetention(Duration retention);

    public abstract Builder setWindow(Duration window);

    public abstract Builder setAllowedLateness(Duration allowedLateness);

    public abstract Builder setTopic(String topic);

    public abstract Builder setLateTopic(String topic);

    public abstract Builder setQuarantineTopic(String topic);

    public abstract Builder setSource(String source);

    public abstract Builder setSqlFile(Path sqlFile);

    public abstract Builder setSql(String sql);

    abstract List<String> key();

    abstract ModelDeclaration autoBuild();

    /**
     * @throws IllegalStateException when the key is empty
     */
    public ModelDeclaration build() {
      setKey(List.copyOf(key()));
      ModelDeclaration m = autoBuild();
      if (m.key().isEmpty()) {
        throw new IllegalStateException("model '" + m.name() + "' has an empty key");
      }
      return m;
    }
  }
}

package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import dev.streamform.core.time.LateEvents;
import dev.streamform.policies.schema.ColumnType;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One source of {@code sources.yml}, validated: the connector has its location, the schema is not
 * empty, and the clock fields are consistent. A source with no {@link #eventTime()} runs on
 * processing time; then {@link #watermark()} is zero, {@link #lateEvents()} is {@code DROP} and
 * {@link #idleAfter()} is empty, and none of them has any effect. Immutable.
 */
@AutoValue
public abstract class SourceDeclaration {

  public abstract String name();

  public abstract Connector connector();

  /** The Kafka topic; present exactly when the connector is {@code kafka}. */
  public abstract Optional<String> topic();

  /**
   * The JSON-lines file, as written (relative to the project folder); present exactly for {@code
   * file}.
   */
  public abstract Optional<String> path();

  /** The record format; {@code json}, the only one so far. */
  public abstract String format();

  /** Column name to type, in declaration order. Unmodifiable. */
  public abstract Map<String, ColumnType> schema();

  /** The {@code timestamp} column that says when each event happened; empty = processing time. */
  public abstract Optional<String> eventTime();

  /** Bounded out-of-orderness: the watermark trails the largest event time seen by this much. */
  public abstract Duration watermark();

  public abstract LateEvents lateEvents();

  /** How long (processing time) a partition may be silent before it stops holding the watermark. */
  public abstract Optional<Duration> idleAfter();

  /**
   * The declared partition count of a Kafka source's topic (the source's partition set is {@code
   * 0..n-1}); absent when the source leaves it to the topic. Part of the watermark topology (§9):
   * {@code streamform run} refuses a topic whose count differs, and {@code streamform plan} says
   * that a change needs a new generation.
   */
  public abstract Optional<Integer> partitions();

  /**
   * The column that identifies an event ({@code event_id:}); a repeat of its value within {@link
   * #duplicatesWithin()} is a duplicate (same payload) or a conflict (another payload). Empty: no
   * deduplication. Needs {@link #eventTime()}: the horizon is event time.
   */
  public abstract Optional<String> eventId();

  /**
   * How long, in event time after an id was first seen, a repeat of it is still recognised ({@code
   * duplicates_within:}, default {@link #DEFAULT_DUPLICATES_WITHIN}); present exactly when {@link
   * #eventId()} is.
   */
  public abstract Optional<Duration> duplicatesWithin();

  /** The horizon of {@code event_id} when {@code duplicates_within} is not given: one hour. */
  public static final Duration DEFAULT_DUPLICATES_WITHIN = Duration.ofHours(1);

  /**
   * What an {@link #eventId()} is unique within ({@code event_id_scope:}, default {@link
   * EventIdScope#SOURCE}); {@link EventIdScope#KEY} only with an {@link #eventId()}.
   */
  public abstract EventIdScope eventIdScope();

  /** What an event id is unique within (ADR 0073). */
  public enum EventIdScope {
    /**
     * The source's whole log: the same id under another key is a conflict (docs/semantics.md §2).
     */
    SOURCE,
    /**
     * An upsert model's key: the same id under another key is that key's own event, and on Flink
     * the duplicate detection can judge on arrival. Windowed and scoring models keep SOURCE.
     */
    KEY;

    /** The spelling in {@code sources.yml}. */
    public String yamlName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * A kafka source's client settings ({@code kafka.properties:}): a {@code .properties} file, as
   * written (relative to the project folder), checked when the project loads. Not part of the
   * declaration's digest: where and how to connect is not what the model computes.
   */
  public abstract Optional<String> kafkaProperties();

  /** True when the source declares event time, i.e. has a clock. */
  public boolean hasEventTime() {
    return eventTime().isPresent();
  }

  public abstract Builder toBuilder();

  /** A builder with the defaults: format json, watermark 0s, late events dropped. */
  public static Builder builder() {
    return new AutoValue_SourceDeclaration.Builder()
        .setFormat("json")
        .setWatermark(Duration.ZERO)
        .setLateEvents(LateEvents.DROP)
        .setEventIdScope(EventIdScope.SOURCE);
  }

  /**
   * Builds a {@link SourceDeclaration}; {@link #build()} checks what a parser has already checked.
   */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setName(String name);

    public abstract Builder setConnector(Connector connector);

    public abstract Builder setTopic(String topic);

    public abstract Builder setPath(String path);

    public abstract Builder setFormat(String format);

    public abstract Builder setSchema(Map<String, ColumnType> schema);

    public abstract Builder setEventTime(String column);

    public abstract Builder setWatermark(Duration watermark);

    public abstract Builder setPartitions(int partitions);

    public abstract Builder setLateEvents(LateEvents lateEvents);

    public abstract Builder setKafkaProperties(String file);

    public abstract Builder setIdleAfter(Duration idleAfter);

    public abstract Builder setEventId(String column);

    public abstract Builder setDuplicatesWithin(Duration horizon);

    public abstract Builder setEventIdScope(EventIdScope scope);

    abstract Map<String, ColumnType> schema();

    abstract SourceDeclaration autoBuild();

    /**
     * @throws IllegalStateException when the declaration breaks a rule of {@code sources.yml}
     */
    public SourceDeclaration build() {
      setSchema(Collections.unmodifiableMap(new LinkedHashMap<>(schema())));
      SourceDeclaration s = autoBuild();
      check(
          s.connector() == Connector.KAFKA ? s.topic().isPresent() : s.path().isPresent(),
          s,
          "a "
              + s.connector().yamlName()
              + " source needs "
              + (s.connector() == Connector.KAFKA ? "a topic" : "a path"));
      check(s.topic().isEmpty() || s.path().isEmpty(), s, "has both a topic and a path");
      check(!s.schema().isEmpty(), s, "has an empty schema");
      if (s.eventTime().isPresent()) {
        String column = s.eventTime().get();
        check(
            s.schema().get(column) == ColumnType.TIMESTAMP,
            s,
            "event_time '" + column + "' is not a timestamp column");
      } else {
        check(
            s.watermark().isZero() && s.lateEvents() == LateEvents.DROP && s.idleAfter().isEmpty(),
            s,
            "has clock settings but no event_time");
      }
      check(!s.watermark().isNegative(), s, "has a negative watermark");
      check(
          s.eventId().isPresent() == s.duplicatesWithin().isPresent(),
          s,
          "has duplicates_within without event_id, or event_id without its horizon");
      check(
          s.eventIdScope() == EventIdScope.SOURCE || s.eventId().isPresent(),
          s,
          "has event_id_scope: key but no event_id");
      if (s.eventId().isPresent()) {
        check(s.eventTime().isPresent(), s, "has event_id but no event_time");
        check(
            s.schema().containsKey(s.eventId().get()),
            s,
            "event_id '" + s.eventId().get() + "' is not a column");
        check(
            !s.duplicatesWithin().get().isNegative() && !s.duplicatesWithin().get().isZero(),
            s,
            "has a duplicates_within that is not positive");
      }
      return s;
    }

    private static void check(boolean ok, SourceDeclaration s, String what) {
      if (!ok) {
        throw new IllegalStateException("source '" + s.name() + "' " + what);
      }
    }
  }
}

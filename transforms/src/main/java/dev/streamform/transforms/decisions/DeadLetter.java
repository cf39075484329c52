package dev.streamform.transforms.decisions;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An event that cannot be scored at all, with the reason: a malformed or missing event time (from
 * {@code EventTimeExtraction}'s quarantine), an impossible clock skew (its time ahead of its
 * arrival by more than the declared bound), or a feature or score that is not a finite double (ADR
 * 0084).
 */
@AutoValue
public abstract class DeadLetter implements Serializable {

  public enum Reason {
    MALFORMED_TIMESTAMP,
    CLOCK_SKEW,
    /** A feature it would read, or its score, is not a finite double (ADR 0084). */
    NON_FINITE
  }

  public abstract Reason reason();

  /** What was wrong, in words, with the partition and offset. */
  public abstract String description();

  /** The event id ({@code <partition>-<offset>}) when the event got that far; null otherwise. */
  public abstract @Nullable String eventId();

  /** The record as text. */
  public abstract String record();

  /** The event's record, for an event that got that far (the scorer's own); null otherwise. */
  public abstract @Nullable Row row();

  /** An event whose time is ahead of its arrival by more than the bound, with its record. */
  public static DeadLetter skew(String eventId, String description, Row record) {
    return new AutoValue_DeadLetter(
        Reason.CLOCK_SKEW, description, eventId, record.toString(), record);
  }

  /**
   * An event whose decision would read a feature, or give a score, that is not a finite double: it
   * gets no decision (ADR 0084).
   */
  public static DeadLetter nonFinite(String eventId, String description, Row record) {
    return new AutoValue_DeadLetter(
        Reason.NON_FINITE, description, eventId, record.toString(), record);
  }

  /** A record the event-time extraction quarantined. */
  public static DeadLetter of(BadRecord quarantined) {
    return new AutoValue_DeadLetter(
        Reason.MALFORMED_TIMESTAMP,
        quarantined.getFailure().getDescription(),
        null,
        String.valueOf(quarantined.getRecord().getHumanReadableJsonRecord()),
        null);
  }
}

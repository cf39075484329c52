package dev.streamform.transforms.clock;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.envelope.Envelope;
import java.io.Serializable;
import org.joda.time.Instant;

/**
 * An event dropped as late: the event, the watermark it lost to, and the reason in words.
 *
 * <p>In {@link ClockResult#late()} its element timestamp is the event's own time ({@code
 * envelope().eventTime()}), the same rule as for changelog records, so late events and changelog
 * records window alike. It leaves the clock as soon as the clock judged it (no hand-over wait).
 * Equality ignores the envelope's {@code ingestTime}, which is informational: the same event judged
 * late in two runs is the same late event.
 */
@AutoValue
public abstract class LateEvent implements Serializable {

  public abstract Envelope envelope();

  /** The partition's watermark at the event's arrival; the event time is strictly before it. */
  public abstract Instant watermark();

  public abstract String reason();

  public static LateEvent of(Envelope envelope, Instant watermark) {
    return new AutoValue_LateEvent(
        envelope,
        watermark,
        "event time "
            + envelope.eventTime()
            + " is behind the watermark "
            + watermark
            + " of partition "
            + envelope.partition());
  }

  static LateEvent of(Envelope envelope, Instant watermark, String reason) {
    return new AutoValue_LateEvent(envelope, watermark, reason);
  }
}

package dev.streamform.transforms.windows;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.envelope.Envelope;
import java.io.Serializable;
import org.joda.time.Instant;

/**
 * An event refused by one window because it arrived when its partition's watermark had passed the
 * window's end plus the allowed lateness. One record per refused window: an event of hopping
 * windows may be refused by one window and accepted by another. Element timestamp: the event's
 * time.
 */
@AutoValue
public abstract class TooLateEvent implements Serializable {

  public abstract Envelope envelope();

  public abstract Instant windowStart();

  public abstract Instant windowEnd();

  /**
   * The partition's watermark when the event arrived ({@code >= window_end + allowed_lateness}).
   */
  public abstract Instant watermark();

  public static TooLateEvent of(
      Envelope envelope, Instant windowStart, Instant windowEnd, Instant watermark) {
    return new AutoValue_TooLateEvent(envelope, windowStart, windowEnd, watermark);
  }

  /** Why the event was refused, for people. */
  public String reason() {
    return "event time "
        + envelope().eventTime()
        + " in window ["
        + windowStart()
        + ", "
        + windowEnd()
        + ") arrived when partition "
        + envelope().partition()
        + "'s watermark was "
        + watermark()
        + ", at or past the window's end plus the allowed lateness";
  }
}

package dev.streamform.transforms.clock;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.envelope.Envelope;
import java.io.Serializable;
import org.joda.time.Instant;

/** An event dropped as late: the event, the watermark it lost to, and the reason in words. */
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

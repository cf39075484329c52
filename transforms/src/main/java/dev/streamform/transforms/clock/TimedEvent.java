package dev.streamform.transforms.clock;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.envelope.Envelope;
import java.io.Serializable;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * An event the source clock let through, with the watermark of its partition at its arrival and its
 * place in the log order of keyed stages.
 *
 * <p>{@link #watermarkAtArrival()} is a function of the partition's log only (the events and
 * punctuations before it in offset order), so everything decided from it downstream — such as
 * whether a key's state had expired — is the same on every runner and under every interleaving of
 * partitions.
 *
 * <p>{@link #stamp()} orders the hand-over to keyed stages ({@link LogOrder}); the event's element
 * timestamp in {@code SourceClock}'s {@code events()} is the earlier of its stamp and its event
 * time, so that in flight it holds the watermark no later than the time its results will carry.
 */
@AutoValue
public abstract class TimedEvent implements Serializable {

  public abstract Envelope envelope();

  /** The partition's watermark before this event advanced it; null while still undefined. */
  public abstract @Nullable Instant watermarkAtArrival();

  /** True when the event was behind the watermark and kept by {@code late_events: keep}. */
  public abstract boolean keptLate();

  /**
   * The event's stamp (see {@link LogOrder}): never decreasing within a partition in offset order,
   * and never behind the clock's output watermark when the event left the clock.
   */
  public abstract Instant stamp();

  public static TimedEvent of(
      Envelope envelope, @Nullable Instant watermarkAtArrival, boolean keptLate, Instant stamp) {
    return new AutoValue_TimedEvent(envelope, watermarkAtArrival, keptLate, stamp);
  }
}
